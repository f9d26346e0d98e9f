jest.setTimeout(600_000);
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { createEngine, DEFAULT_REGISTRY, imresizeBicubic, modcrop, networkAtPrecision, scoreY, type UpscaleEngine } from '@upscaler/engine';
import { INT8_KERNELS, itAt, itWithInt8Kernels } from './int8-kernels';

/**
 * Our trained networks, run by the engine exactly as the service runs them (PNG in, tiles,
 * PNG out), reproduce the Set5 PSNR recorded in their model cards (docs/model-cards/, written by
 * sr release from the engine's quality harness on whole images) within 0.05 dB: deterministic given the
 * committed weights.
 */
const SET5 = join(__dirname, '..', '..', '..', '..', 'shared', 'datasets', 'Set5');

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The Set5, Set14 and BSD100 PSNR a model card records (written with the ONNX file by sr release) in the
 * row of `network` (a registry id, or another row's label). A `-ensemble` (or two-pass `-pair`) registry entry runs the
 * file of the network without the suffix, whose card has the ensemble's row; an `-int8` network's rows are in its float32
 * parent's card (sr int8-card).
 */
function recordedPsnr(
  network: string,
  protocol = 'bicubic',
  cardOf = network.replace(/-(ensemble|pair)$/, '').replace(/-int8$/, ''),
): [number, number, number] {
  const card = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'model-cards', `${cardOf}.md`), 'utf8');
  const cell = '([0-9.]+) / [0-9.]+';
  const row = new RegExp(`^\\| ${escape(network)} \\| ${escape(protocol)} \\| ${cell} \\| ${cell} \\| ${cell} \\|`, 'm').exec(card);
  if (!row) throw new Error(`no ${protocol} row for ${network} in the model card of ${cardOf}`);
  return [Number(row[1]), Number(row[2]), Number(row[3])];
}

const recordedSet5 = (network: string, protocol = 'bicubic') => recordedPsnr(network, protocol)[0];

/** Set5 at `scale`: each HR image modcropped, and its LR made with MATLAB bicubic, as PNG or as JPEG at quality q. */
async function set5(scale: number, jpegQuality?: number) {
  const out = [];
  for (const f of readdirSync(SET5)
    .filter((x) => x.endsWith('.png'))
    .sort()) {
    const { data, info } = await sharp(join(SET5, f)).raw().toBuffer({ resolveWithObject: true });
    const hr = modcrop({ width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data) }, scale);
    const lr = imresizeBicubic(hr, 1 / scale);
    const raw = sharp(Buffer.from(lr.data), { raw: { width: lr.width, height: lr.height, channels: lr.channels as 3 } });
    out.push({ hr, input: await (jpegQuality ? raw.jpeg({ quality: jpegQuality, chromaSubsampling: '4:2:0' }) : raw.png()).toBuffer() });
  }
  return out;
}

async function meanPsnr(
  engine: UpscaleEngine,
  images: Awaited<ReturnType<typeof set5>>,
  scale: number,
  target: '2k' | '3k' | '4k',
  quality: 'fast' | 'balanced' | 'best' = 'fast',
) {
  let total = 0;
  const networks = new Set<string>();
  for (const { hr, input } of images) {
    const out = await engine.upscale({ input, target, format: 'png', quality });
    networks.add(out.network);
    const sr = await sharp(out.output).raw().toBuffer({ resolveWithObject: true });
    total += scoreY(
      { width: sr.info.width, height: sr.info.height, channels: sr.info.channels, data: new Uint8Array(sr.data) },
      hr,
      scale,
    ).psnr;
  }
  return { mean: total / images.length, networks: [...networks] };
}

describe('trained networks in the engine', () => {
  // int8 on any CPU: the networks named below do not depend on the machine's VNNI flag (`auto` would follow it).
  let engine: UpscaleEngine;
  let float32: UpscaleEngine;
  beforeAll(async () => {
    engine = await createEngine({ precision: 'int8' });
    float32 = await createEngine({ precision: 'float32' });
  });
  afterAll(async () => {
    await Promise.all([engine.close(), float32.close()]);
  });

  it('auto precision follows the CPU: int8 networks only where it has an int8 dot product', async () => {
    const auto = await createEngine();
    try {
      expect(auto.describe().precision).toBe(INT8_KERNELS ? 'int8' : 'float32');
    } finally {
      await auto.close();
    }
  });

  itWithInt8Kernels.each([
    [2, '2k', 'balanced', 'ours-balanced-x2-int8-pair'],
    [3, '3k', 'balanced', 'ours-balanced-x3-int8'],
    [4, '4k', 'balanced', 'ours-balanced-x4-int8-pair'],
    [2, '2k', 'best', 'ours-blend-x2-int8-ensemble'],
    [3, '3k', 'best', 'ours-balanced-x3-int8-ensemble'],
    [4, '4k', 'best', 'ours-blend-x4-int8-ensemble'],
  ] as const)(
    'x%i (%s), quality %s, runs %s and scores the Set5 PSNR of its model card (Y, shave = scale)',
    async (scale, target, quality, network) => {
      const recorded = recordedSet5(network);
      expect(recorded).toBeGreaterThan({ 2: 36, 3: 32, 4: 30 }[scale]);
      const { mean, networks } = await meanPsnr(engine, await set5(scale), scale, target, quality);
      expect(networks).toEqual([network]);
      expect(Math.abs(mean - recorded)).toBeLessThanOrEqual(0.05);
    },
  );

  it.each([2, 3, 4] as const)('x%i: each tier runs a network that beats the tier below on Set5, Set14 and BSD100', (scale) => {
    const { fast, balanced, best } = DEFAULT_REGISTRY.tiers;
    const [f, m, b] = [fast[scale], balanced[scale], best[scale]].map((id) => recordedPsnr(id));
    expect(m.map((p, i) => p > f[i])).toEqual([true, true, true]);
    expect(b.map((p, i) => p > m[i])).toEqual([true, true, true]);
  });

  it("x3: ours-fast-x3 beats the converted esrgan-thick-x3 (the best tier's x3 network before it) by over 0.5 dB on Set5, Set14 and BSD100", () => {
    const ours = recordedPsnr('ours-fast-x3');
    const thick = recordedPsnr('esrgan-thick (engine, converted UpscalerJS)', 'bicubic', 'ours-fast-x3');
    expect(ours.map((p, i) => p - thick[i] > 0.5)).toEqual([true, true, true]);
  });

  // Each case at both precisions: int8 runs the -int8 networks, float32 their parents (same ids without -int8). The
  // int8 cases run only where the CPU has the int8 dot product they were measured on, and are skipped elsewhere
  // (int8-kernels.ts).
  const atBoth = <S extends number, T extends string>(
    cases: readonly (readonly [S, T])[],
    title: string,
    test: (scale: S, target: T, precision: 'int8' | 'float32') => Promise<void>,
  ) => {
    for (const precision of ['int8', 'float32'] as const) {
      itAt(precision).each(cases.map(([scale, target]) => [scale, target, precision] as const))(title, test);
    }
  };
  const suffix = (precision: 'int8' | 'float32') => (precision === 'int8' ? '-int8' : '');
  const engineAt = (precision: 'int8' | 'float32') => (precision === 'int8' ? engine : float32);

  atBoth(
    [
      [2, '2k'],
      [3, '3k'],
      [4, '4k'],
    ] as const,
    'x%i (%s), quality fast, at %s runs its network and scores the Set5 PSNR of its card',
    async (scale, target, precision) => {
      const network = `ours-fast-x${scale}${suffix(precision)}`;
      const { mean, networks } = await meanPsnr(engineAt(precision), await set5(scale), scale, target, 'fast');
      expect(networks).toEqual([network]);
      expect(Math.abs(mean - recordedSet5(network))).toBeLessThanOrEqual(0.05);
    },
  );

  atBoth(
    [
      [2, '2k'],
      [4, '4k'],
    ] as const,
    'x%i (%s) at %s runs the photo variant for JPEGs saved at quality 85 or below and scores the JPEG q75 Set5 PSNR of its card',
    async (scale, target, precision) => {
      const e = engineAt(precision);
      const photo = `ours-photo-x${scale}${suffix(precision)}`;
      const recorded = recordedSet5(photo, 'bicubic + JPEG q75');
      const q75 = await meanPsnr(e, await set5(scale, 75), scale, target);
      expect(q75.networks).toEqual([photo]);
      expect(Math.abs(q75.mean - recorded)).toBeLessThanOrEqual(0.05);
      expect((await meanPsnr(e, await set5(scale, 85), scale, target)).networks).toEqual([photo]);
      // A JPEG saved at q95 is nearly clean: the bicubic-trained network is better there and runs.
      expect((await meanPsnr(e, await set5(scale, 95), scale, target)).networks).toEqual([`ours-fast-x${scale}${suffix(precision)}`]);
    },
  );

  atBoth(
    [
      [2, '2k'],
      [4, '4k'],
    ] as const,
    "x%i (%s), quality best, at %s runs the self-ensembled photo variant for a JPEG q75 and scores its card's row; q95 runs the best tier's network",
    async (scale, target, precision) => {
      const network = `ours-photo-x${scale}${suffix(precision)}-ensemble`;
      const recorded = recordedSet5(network, 'bicubic + JPEG q75');
      expect(recorded).toBeGreaterThan(recordedSet5(`ours-photo-x${scale}${suffix(precision)}`, 'bicubic + JPEG q75'));
      const q75 = await meanPsnr(engineAt(precision), await set5(scale, 75), scale, target, 'best');
      expect(q75.networks).toEqual([network]);
      expect(Math.abs(q75.mean - recorded)).toBeLessThanOrEqual(0.05);
      const q95 = await meanPsnr(engineAt(precision), await set5(scale, 95), scale, target, 'best');
      expect(q95.networks).toEqual([networkAtPrecision(DEFAULT_REGISTRY, DEFAULT_REGISTRY.tiers.best[scale], precision)]);
    },
  );

  it('training/exports/registry.json (an UPSCALE_ENGINE_REGISTRY file) puts our networks in every tier where they win', async () => {
    const registryFile = join(__dirname, '..', '..', '..', 'training', 'exports', 'registry.json');
    const alt = await createEngine({ registry: registryFile, precision: 'int8' });
    try {
      expect(alt.describe().tiers).toEqual({
        fast: { 2: 'ours-fast-x2-int8', 3: 'ours-fast-x3-int8', 4: 'ours-fast-x4-int8' },
        balanced: { 2: 'ours-balanced-x2-int8-pair', 3: 'ours-balanced-x3-int8', 4: 'ours-balanced-x4-int8-pair' },
        best: { 2: 'ours-blend-x2-int8-ensemble', 3: 'ours-balanced-x3-int8-ensemble', 4: 'ours-blend-x4-int8-ensemble' },
        // Not in the file (written before the sharp tier existed): the built-in sharp tier (load-registry.ts, withDefaultTiers).
        sharp: { 2: 'realesrgan-x4plus-to-x2', 3: 'realesrgan-x4plus-to-x3', 4: 'realesrgan-x4plus' },
      });
      // The built-in registry's tiers, the same entries with paths into training/exports/.
      expect(alt.describe().tiers).toEqual(DEFAULT_REGISTRY.tiers);
      // ... and every one of its networks is the built-in entry (radius, tile, ensemble) but for the file's folder, so
      // the two copies cannot drift when a release changes a network's receptive radius.
      const file = JSON.parse(readFileSync(registryFile, 'utf8')) as {
        networks: Record<string, { file: string }>;
        jpegVariants: unknown;
      };
      for (const [id, entry] of Object.entries(file.networks)) {
        expect([id, { ...entry, file: entry.file.replace('../training/exports/', '') }]).toEqual([id, DEFAULT_REGISTRY.networks[id]]);
      }
      expect(file.jpegVariants).toEqual(DEFAULT_REGISTRY.jpegVariants);
      const [{ input }] = await set5(2, 75);
      expect((await alt.upscale({ input, target: '2k', format: 'png', quality: 'best' })).network).toBe('ours-photo-x2-int8-ensemble');
    } finally {
      await alt.close();
    }
  });
});
