// AVIF encode time of a 16 MP image per libvips effort (the engine uses effort 2, image/encode-image.ts).
// Usage: nice -n 10 node bench/engine/run.js avif [--efforts 0,2,4] [--mp 16]
import sharp from 'sharp';
import { machineLine, printTable } from './table';

async function main(): Promise<void> {
  const i = process.argv.indexOf('--efforts');
  const efforts = (i > 0 ? process.argv[i + 1] : '0,2,4').split(',').map(Number);
  const j = process.argv.indexOf('--mp');
  const mp = j > 0 ? Number(process.argv[j + 1]) : 16;
  const width = Math.round(Math.sqrt((mp * 1e6 * 4) / 3));
  const height = Math.round((width * 3) / 4);
  const base = await sharp(`${__dirname}/../../../shared/datasets/Set14/lenna.png`).resize(width, height, { fit: 'fill' }).raw().toBuffer();
  const rows: (string | number)[][] = [];
  console.log(machineLine());
  for (const effort of efforts) {
    const t = performance.now();
    const out = await sharp(base, { raw: { width, height, channels: 3 } })
      .avif({ quality: 60, effort })
      .toBuffer();
    rows.push([`${width}x${height}`, effort, ((performance.now() - t) / 1000).toFixed(1), (out.length / 1e6).toFixed(2)]);
  }
  printTable(['size', 'effort', 'encode s', 'MB'], rows);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
