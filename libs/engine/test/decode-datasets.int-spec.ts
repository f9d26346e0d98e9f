jest.setTimeout(600_000);
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { decodeImage } from '../src/image/decode-image';

/**
 * The strict decode (decode-image.ts: libvips with failOn 'warning', lost data is corrupt_image) must not refuse
 * real images: every PNG of the shared benchmark and training sets, and the test sets re-encoded the ways
 * encoders in the wild write JPEG, WebP and AVIF, decode to exactly the pixels the lenient decode
 * (failOn 'error', what the engine used before) gives.
 */

const DATASETS = join(__dirname, '..', '..', '..', '..', 'shared', 'datasets');
const FOLDERS = ['Set5', 'Set14', 'BSD100', 'train/T91', 'train/BSD200'];

function pngsIn(folder: string): string[] {
  return (readdirSync(join(DATASETS, folder), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.png'))
    .sort()
    .map((f) => join(DATASETS, folder, f));
}

async function lenient(input: Buffer): Promise<Buffer> {
  const gray = (await sharp(input).metadata()).channels === 1;
  return sharp(input, { failOn: 'error', autoOrient: true })
    .toColourspace(gray ? 'b-w' : 'srgb')
    .raw({ depth: 'uchar' })
    .toBuffer();
}

async function decodesAsBefore(input: Buffer): Promise<boolean> {
  const img = await decodeImage(input, { maxInputPixels: 50_000_000, flatten: false });
  return Buffer.compare(img.data, await lenient(input)) === 0;
}

describe('the shared datasets decode with the strict decoder (../shared/datasets)', () => {
  it.each(FOLDERS)('every PNG of %s', async (folder) => {
    const files = pngsIn(folder);
    expect(files.length).toBeGreaterThan(4);
    const refused: string[] = [];
    for (const f of files) {
      try {
        if (!(await decodesAsBefore(readFileSync(f)))) refused.push(`${f}: different pixels`);
      } catch (e) {
        refused.push(`${f}: ${(e as Error).message}`);
      }
    }
    expect(refused).toEqual([]);
  });

  const encoders: Array<[string, (img: Sharp) => Sharp]> = [
    ['baseline JPEG q90', (img) => img.jpeg({ quality: 90 })],
    ['progressive mozjpeg q75', (img) => img.jpeg({ quality: 75, mozjpeg: true })],
    ['JPEG 4:4:4 with optimised Huffman tables q50', (img) => img.jpeg({ quality: 50, chromaSubsampling: '4:4:4', optimiseCoding: true })],
    ['lossy WebP', (img) => img.webp({ quality: 80 })],
    ['lossless WebP', (img) => img.webp({ lossless: true, effort: 0 })],
    ['AVIF', (img) => img.avif({ quality: 50, effort: 0 })],
  ];

  it.each(encoders)('Set5 and Set14 as %s', async (_, encode) => {
    const refused: string[] = [];
    for (const f of [...pngsIn('Set5'), ...pngsIn('Set14')]) {
      const encoded = await encode(sharp(readFileSync(f))).toBuffer();
      try {
        if (!(await decodesAsBefore(encoded))) refused.push(`${f}: different pixels`);
      } catch (e) {
        refused.push(`${f}: ${(e as Error).message}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
