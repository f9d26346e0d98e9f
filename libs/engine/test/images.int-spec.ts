jest.setTimeout(600_000);
import sharp from 'sharp';
import { createEngine, EngineCancelledError, EngineError, type UpscaleEngine } from '@upscaler/engine';
import { slowX3Registry } from '@upscaler/testing';
import { noiseImage } from './onnx-helpers';

const noisy = (w: number, h: number, seed = 1) =>
  sharp(Buffer.from(Uint8Array.from(noiseImage(h, w, seed))), { raw: { width: w, height: h, channels: 3 } });

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof EngineError) return e.code;
    throw e;
  }
}

/** Puts an acTL chunk (the APNG marker) right after IHDR: still decodable as its first frame. */
function makeApng(png: Buffer): Buffer {
  const ihdrEnd = 8 + 12 + 13;
  const acTL = Buffer.alloc(20);
  acTL.writeUInt32BE(8, 0);
  acTL.write('acTL', 4, 'latin1');
  acTL.writeUInt32BE(2, 8);
  return Buffer.concat([png.subarray(0, ihdrEnd), acTL, png.subarray(ihdrEnd)]);
}

/** Rewrites the IHDR size of a PNG (header only; the pixel data stays tiny): a decompression-bomb header. */
function withPngSize(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

describe('engine: images as users expect (docs/design.md §4)', () => {
  let engine: UpscaleEngine;
  beforeAll(async () => {
    // int8 on any CPU, so the networks named below do not depend on the machine (`auto` would follow its VNNI flag).
    engine = await createEngine({ maxInputPixels: 1_000_000, maxOutputPixels: 4_000_000, precision: 'int8' });
  });
  afterAll(() => engine.close());

  describe('probe', () => {
    it('detects JPEG, PNG, WebP and AVIF from the bytes, with oriented size, channels and alpha', async () => {
      const img = noisy(30, 20);
      expect(await engine.probe(await img.clone().jpeg().toBuffer())).toEqual({
        format: 'jpeg',
        width: 30,
        height: 20,
        channels: 3,
        hasAlpha: false,
        animated: false,
      });
      expect(await engine.probe(await img.clone().png().toBuffer())).toEqual({
        format: 'png',
        width: 30,
        height: 20,
        channels: 3,
        hasAlpha: false,
        animated: false,
      });
      expect(await engine.probe(await img.clone().ensureAlpha(0.5).webp().toBuffer())).toEqual({
        format: 'webp',
        width: 30,
        height: 20,
        channels: 4,
        hasAlpha: true,
        animated: false,
      });
      expect(await engine.probe(await img.clone().avif({ effort: 0 }).toBuffer())).toEqual({
        format: 'avif',
        width: 30,
        height: 20,
        channels: 3,
        hasAlpha: false,
        animated: false,
      });
      const gray = await sharp(Buffer.alloc(30 * 20, 99), { raw: { width: 30, height: 20, channels: 1 } })
        .toColourspace('b-w')
        .png()
        .toBuffer();
      expect(await engine.probe(gray)).toMatchObject({ channels: 1, hasAlpha: false });
    });

    it('refuses GIF, TIFF, BMP, SVG and HEIC as unsupported_media_type, whatever the caller called them', async () => {
      const img = noisy(8, 8);
      expect(await codeOf(engine.probe(await img.clone().gif().toBuffer()))).toBe('unsupported_media_type');
      expect(await codeOf(engine.probe(await img.clone().tiff().toBuffer()))).toBe('unsupported_media_type');
      const bmp = Buffer.concat([Buffer.from('BM'), Buffer.alloc(52)]);
      expect(await codeOf(engine.probe(bmp))).toBe('unsupported_media_type');
      expect(await codeOf(engine.probe(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')))).toBe(
        'unsupported_media_type',
      );
      const heic = Buffer.concat([
        Buffer.from([0, 0, 0, 24]),
        Buffer.from('ftypheic'),
        Buffer.alloc(4),
        Buffer.from('mif1heic'),
        Buffer.alloc(32),
      ]);
      expect(await codeOf(engine.probe(heic))).toBe('unsupported_media_type');
      expect(
        await codeOf(engine.upscale({ input: await img.clone().gif().toBuffer(), target: '2k', format: 'png', quality: 'fast' })),
      ).toBe('unsupported_media_type');
    });

    it('answers invalid_image for a recognised signature with an unreadable header', async () => {
      const png = await noisy(8, 8).png().toBuffer();
      expect(await codeOf(engine.probe(png.subarray(0, 20)))).toBe('invalid_image');
    });

    it('refuses a decompression bomb from its header, before decoding (image_dimensions_too_large)', async () => {
      const png = await noisy(8, 8).png().toBuffer();
      const bomb = withPngSize(png, 50_000, 50_000);
      expect(await codeOf(engine.probe(bomb))).toBe('image_dimensions_too_large');
      expect(await codeOf(engine.upscale({ input: bomb, target: '2k', format: 'png', quality: 'fast' }))).toBe(
        'image_dimensions_too_large',
      );
    });

    it('refuses animated WebP and APNG (animated_image)', async () => {
      const a = await noisy(8, 8, 1).png().toBuffer();
      const b = await noisy(8, 8, 2).png().toBuffer();
      const webp = await sharp([a, b], { join: { animated: true } })
        .webp()
        .toBuffer();
      expect(await codeOf(engine.probe(webp))).toBe('animated_image');
      expect(await codeOf(engine.probe(makeApng(a)))).toBe('animated_image');
      expect(await codeOf(engine.upscale({ input: webp, target: '2k', format: 'png', quality: 'fast' }))).toBe('animated_image');
    });

    it('reports dimensions after EXIF orientation', async () => {
      const rotated = await noisy(16, 8).jpeg().withMetadata({ orientation: 6 }).toBuffer();
      expect(await engine.probe(rotated)).toMatchObject({ width: 8, height: 16 });
    });
  });

  describe('refusal rule (spec 1)', () => {
    it('accepts the targets whose output fits maxOutputPixels and refuses the others with image_too_large_to_upscale', async () => {
      expect(engine.acceptedTargets(500, 500)).toEqual(['2k', '3k', '4k']);
      expect(engine.acceptedTargets(600, 600)).toEqual(['2k', '3k']);
      expect(engine.acceptedTargets(1000, 1000)).toEqual(['2k']);
      expect(engine.acceptedTargets(1001, 1000)).toEqual([]);
      const small = await createEngine({ maxOutputPixels: 40 * 30 * 4 });
      try {
        const input = await noisy(40, 30).png().toBuffer();
        expect(small.acceptedTargets(40, 30)).toEqual(['2k']);
        expect(await codeOf(small.upscale({ input, target: '3k', format: 'png', quality: 'fast' }))).toBe('image_too_large_to_upscale');
        expect((await small.upscale({ input, target: '2k', format: 'png', quality: 'fast' })).width).toBe(80);
      } finally {
        await small.close();
      }
    });

    it('describes its tiers, illustration networks, default tier, limit and precision: the int8 networks, or at float32 their parents', async () => {
      expect(engine.describe()).toEqual({
        defaultQuality: 'fast',
        maxOutputPixels: 4_000_000,
        precision: 'int8',
        tiers: {
          fast: { 2: 'ours-fast-x2-int8', 3: 'ours-fast-x3-int8', 4: 'ours-fast-x4-int8' },
          balanced: { 2: 'ours-balanced-x2-int8-pair', 3: 'ours-balanced-x3-int8', 4: 'ours-balanced-x4-int8-pair' },
          best: { 2: 'ours-blend-x2-int8-ensemble', 3: 'ours-balanced-x3-int8-ensemble', 4: 'ours-blend-x4-int8-ensemble' },
          sharp: { 2: 'realesrgan-x4plus-to-x2', 3: 'realesrgan-x4plus-to-x3', 4: 'realesrgan-x4plus' },
        },
        // content: illustration: only the sharp tier runs another network.
        illustration: {
          sharp: { 2: 'realesrgan-x4plus-anime-to-x2', 3: 'realesrgan-x4plus-anime-to-x3', 4: 'realesrgan-x4plus-anime' },
        },
      });
      const float32 = await createEngine({ precision: 'float32' });
      try {
        expect([float32.describe().precision, float32.describe().tiers.fast]).toEqual([
          'float32',
          { 2: 'ours-fast-x2', 3: 'ours-fast-x3', 4: 'ours-fast-x4' },
        ]);
        // balanced at 2k and 4k spends int8's saving on a second pass; float32 has none to spend and runs one pass (atFloat32).
        expect(float32.describe().tiers.balanced).toEqual({ 2: 'ours-balanced-x2', 3: 'ours-balanced-x3', 4: 'ours-balanced-x4' });
        // best at 2k and 4k blends ours-balanced with a larger int8 network; a float32 engine runs best's eight float32 passes.
        expect(float32.describe().tiers.best).toEqual({
          2: 'ours-balanced-x2-ensemble',
          3: 'ours-balanced-x3-ensemble',
          4: 'ours-balanced-x4-ensemble',
        });
        const input = await noisy(20, 12).png().toBuffer();
        expect((await float32.upscale({ input, target: '2k', format: 'png', quality: 'fast' })).network).toBe('ours-fast-x2');
        expect((await engine.upscale({ input, target: '2k', format: 'png', quality: 'fast' })).network).toBe('ours-fast-x2-int8');
      } finally {
        await float32.close();
      }
    });
  });

  describe('upscale', () => {
    it('produces every output format at the target size with its content type and no EXIF, ICC or XMP', async () => {
      const input = await noisy(24, 16)
        .withExif({ IFD0: { Copyright: 'someone' } })
        .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>')
        .withIccProfile('p3')
        .jpeg()
        .toBuffer();
      const inMeta = await sharp(input).metadata();
      expect([!!inMeta.exif, !!inMeta.icc, !!inMeta.xmp]).toEqual([true, true, true]);
      for (const [format, target, scale, decoder] of [
        ['png', '2k', 2, 'png'],
        ['jpeg', '3k', 3, 'jpeg'],
        ['webp', '4k', 4, 'webp'],
        ['avif', '2k', 2, 'heif'],
      ] as const) {
        const r = await engine.upscale({ input, target, format, quality: 'fast' });
        // The input is a JPEG at sharp's default quality 80: at x2 and x4 the fast tier runs its photo variants (x3 has none).
        const network = { 2: 'ours-photo-x2-int8', 3: 'ours-fast-x3-int8', 4: 'ours-photo-x4-int8' }[scale];
        expect([r.contentType, r.width, r.height, r.scale, r.network]).toEqual([`image/${format}`, 24 * scale, 16 * scale, scale, network]);
        const m = await sharp(r.output).metadata();
        expect([m.format, m.width, m.height, m.exif, m.icc, m.xmp]).toEqual([
          decoder,
          24 * scale,
          16 * scale,
          undefined,
          undefined,
          undefined,
        ]);
      }
    });

    it('resizes the upscale to a requested size: fill keeps every band, cover crops evenly, JPEG still flattened', async () => {
      // A cut-out: an opaque red square on a transparent 40x30 canvas.
      const input = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
        .composite([{ input: { create: { width: 20, height: 20, channels: 4, background: '#ff0000' } }, left: 10, top: 5 }])
        .png()
        .toBuffer();
      const fill = await engine.upscale({
        input,
        target: '3k',
        format: 'png',
        quality: 'fast',
        size: { width: 100, height: 75, resize: 'fill' },
      });
      const fm = await sharp(fill.output).metadata();
      expect([fill.width, fill.height, fm.width, fm.height, fm.channels, fill.scale]).toEqual([100, 75, 100, 75, 4, 3]);
      const cover = await engine.upscale({
        input,
        target: '2k',
        format: 'jpeg',
        quality: 'fast',
        size: { width: 30, height: 60, resize: 'cover' },
      });
      const { data, info } = await sharp(cover.output).raw().toBuffer({ resolveWithObject: true });
      // 40x30 covered into 30x60 is 80x60 cropped to its middle 30 columns: all of them inside the red square (x 20-60).
      const px = (x: number, y: number) => Array.from(data.subarray((y * 30 + x) * 3, (y * 30 + x) * 3 + 3));
      expect([info.width, info.height, info.channels]).toEqual([30, 60, 3]);
      expect(px(15, 30)[0]).toBeGreaterThan(200);
      expect(px(15, 30)[1]).toBeLessThan(60);
      // above the square: transparent, flattened on white
      expect(px(15, 2)).toEqual([255, 255, 255]);
    });

    it('applies EXIF orientation before upscaling', async () => {
      // Left half red, right half blue, stored sideways with orientation 6 (rotate 90 degrees clockwise to view).
      const stored = await sharp({ create: { width: 16, height: 8, channels: 3, background: '#ff0000' } })
        .composite([{ input: { create: { width: 8, height: 8, channels: 3, background: '#0000ff' } }, left: 8, top: 0 }])
        .png()
        .toBuffer();
      const input = await sharp(stored).jpeg({ quality: 100 }).withMetadata({ orientation: 6 }).toBuffer();
      const r = await engine.upscale({ input, target: '2k', format: 'png', quality: 'fast' });
      expect([r.width, r.height]).toEqual([16, 32]);
      const px = await sharp(r.output).raw().toBuffer();
      // Viewed upright, the stored left (red) half is on top and the right (blue) half at the bottom.
      const at = (x: number, y: number) => Array.from(px.subarray((y * 16 + x) * 3, (y * 16 + x) * 3 + 3));
      expect(at(8, 4)[0]).toBeGreaterThan(200);
      expect(at(8, 4)[2]).toBeLessThan(60);
      expect(at(8, 28)[2]).toBeGreaterThan(200);
      expect(at(8, 28)[0]).toBeLessThan(60);
    });

    it('converts colour to sRGB through the embedded ICC profile', async () => {
      const input = await sharp({ create: { width: 24, height: 24, channels: 3, background: { r: 200, g: 60, b: 40 } } })
        .withIccProfile('p3')
        .png()
        .toBuffer();
      const stored = Array.from((await sharp(input, { ignoreIcc: true }).raw().toBuffer()).subarray(0, 3));
      const srgb = Array.from((await sharp(input).toColourspace('srgb').raw().toBuffer()).subarray(0, 3));
      // The profile matters: the stored (P3) numbers are far from their sRGB meaning.
      expect(Math.max(...stored.map((v, i) => Math.abs(v - srgb[i])))).toBeGreaterThan(10);
      const r = await engine.upscale({ input, target: '2k', format: 'png', quality: 'fast' });
      const px = await sharp(r.output).raw().toBuffer();
      const centre = Array.from(px.subarray((24 * 48 + 24) * 3, (24 * 48 + 24) * 3 + 3));
      expect(Math.max(...centre.map((v, i) => Math.abs(v - srgb[i])))).toBeLessThanOrEqual(4);
    });

    it('keeps grayscale single-channel', async () => {
      const gray = Buffer.from(Uint8Array.from(noiseImage(20, 20, 4).subarray(0, 400)));
      const input = await sharp(gray, { raw: { width: 20, height: 20, channels: 1 } })
        .toColourspace('b-w')
        .png()
        .toBuffer();
      expect((await sharp(input).metadata()).channels).toBe(1);
      const r = await engine.upscale({ input, target: '2k', format: 'png', quality: 'fast' });
      const m = await sharp(r.output).metadata();
      expect([m.channels, m.space, m.width]).toEqual([1, 'b-w', 40]);
    });

    it('keeps alpha for png/webp/avif (upscaled with Lanczos beside the network) and flattens it onto white for jpeg', async () => {
      const w = 20;
      const h = 16;
      const rgba = Buffer.alloc(w * h * 4);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const p = (y * w + x) * 4;
          rgba.set([30, 90, 200, x < w / 2 ? 0 : Math.round((255 * y) / (h - 1))], p);
        }
      const input = await sharp(rgba, { raw: { width: w, height: h, channels: 4 } })
        .png()
        .toBuffer();
      const alpha = Buffer.alloc(w * h);
      for (let i = 0; i < w * h; i++) alpha[i] = rgba[i * 4 + 3];
      const expectedAlpha = await sharp(alpha, { raw: { width: w, height: h, channels: 1 } })
        .resize(w * 2, h * 2, { kernel: 'lanczos3', fit: 'fill' })
        .extractChannel(0)
        .raw()
        .toBuffer();
      expect(expectedAlpha.length).toBe(w * h * 4);
      const png = await engine.upscale({ input, target: '2k', format: 'png', quality: 'fast' });
      const { data, info } = await sharp(png.output).raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(4);
      const gotAlpha = Buffer.alloc(w * h * 4);
      for (let i = 0; i < w * h * 4; i++) gotAlpha[i] = data[i * 4 + 3];
      expect(Buffer.compare(gotAlpha, expectedAlpha)).toBe(0);
      for (const format of ['webp', 'avif'] as const) {
        const r = await engine.upscale({ input, target: '2k', format, quality: 'fast' });
        expect((await sharp(r.output).metadata()).hasAlpha).toBe(true);
      }
      const jpeg = await engine.upscale({ input, target: '2k', format: 'jpeg', quality: 'fast' });
      const j = await sharp(jpeg.output).raw().toBuffer({ resolveWithObject: true });
      expect([j.info.channels, (await sharp(jpeg.output).metadata()).hasAlpha]).toEqual([3, false]);
      // Fully transparent pixels (left half, alpha 0) became white.
      const p = (8 * 40 + 4) * 3;
      expect(Array.from(j.data.subarray(p, p + 3)).every((v) => v >= 245)).toBe(true);
    });

    it('a hard-edged cut-out (black under its transparency) gets no dark outline, as JPEG or as PNG flattened on white', async () => {
      // a dark-red disc (luma 99) on transparent pixels whose colour is black, as many editors leave it
      const W = 96;
      const rgba = Buffer.alloc(W * W * 4);
      for (let y = 0; y < W; y++)
        for (let x = 0; x < W; x++) if ((x - 48) ** 2 + (y - 48) ** 2 < 30 ** 2) rgba.set([200, 60, 40, 255], (y * W + x) * 4);
      const input = await sharp(rgba, { raw: { width: W, height: W, channels: 4 } })
        .png()
        .toBuffer();
      /** The darkest luma on the disc's edge: from 2.5 px inside it to 2.5 px outside (input pixels). */
      const darkestOnEdge = async (image: ReturnType<typeof sharp>) => {
        const { data, info } = await image.greyscale().raw().toBuffer({ resolveWithObject: true });
        const s = info.width / W;
        let min = 255;
        for (let y = 0; y < info.height; y++)
          for (let x = 0; x < info.width; x++) {
            const r = Math.hypot((x + 0.5) / s - 48, (y + 0.5) / s - 48);
            if (r > 27.5 && r < 32.5) min = Math.min(min, data[y * info.width + x]);
          }
        return min;
      };
      const jpeg = await engine.upscale({ input, target: '2k', format: 'jpeg', quality: 'fast' });
      const png = await engine.upscale({ input, target: '2k', format: 'png', quality: 'fast' });
      const darkest = [await darkestOnEdge(sharp(jpeg.output)), await darkestOnEdge(sharp(png.output).flatten({ background: '#ffffff' }))];
      // Before the colour under transparency was filled in (and JPEGs flattened after the upscale): 53 and 66, a dark
      // ring around the disc. Now nothing on the edge is darker than the disc itself, give or take JPEG's error.
      expect(darkest.map((v) => v >= 94)).toEqual([true, true]);
    });

    it('fails a file whose header decodes but whose data is truncated with corrupt_image', async () => {
      const big = noisy(64, 64);
      for (const format of ['png', 'jpeg', 'avif'] as const) {
        const whole = await big.clone().toFormat(format).toBuffer();
        const cut = whole.subarray(0, Math.floor(whole.length * 0.6));
        expect(await engine.probe(cut)).toMatchObject({ width: 64, height: 64 });
        expect([format, await codeOf(engine.upscale({ input: cut, target: '2k', format: 'png', quality: 'fast' }))]).toEqual([
          format,
          'corrupt_image',
        ]);
      }
    });

    it('is a neural network, not a resize: its output differs from every sharp resize kernel', async () => {
      const input = await noisy(24, 24).png().toBuffer();
      const r = await engine.upscale({ input, target: '2k', format: 'png', quality: 'fast' });
      const ours = await sharp(r.output).raw().toBuffer();
      for (const kernel of ['nearest', 'cubic', 'mitchell', 'lanczos2', 'lanczos3'] as const) {
        const resized = await sharp(input).resize(48, 48, { kernel }).raw().toBuffer();
        let diff = 0;
        for (let i = 0; i < ours.length; i++) diff += Math.abs(ours[i] - resized[i]);
        expect([kernel, diff / ours.length > 5]).toEqual([kernel, true]);
      }
    });
  });

  describe('off the event loop, cancellable', () => {
    // Both run x3 on the converted esrgan-medium-x3 (libs/testing registry.ts): slow enough that a job spans many
    // timer slots and the abort lands mid-run, whatever network the default tiers name at x3.
    it('keeps the event loop responsive while a job runs', async () => {
      const slow = await createEngine({ registry: slowX3Registry() });
      try {
        const input = await noisy(160, 160).png().toBuffer();
        let ticks = 0;
        let maxGap = 0;
        let last = performance.now();
        const timer = setInterval(() => {
          const now = performance.now();
          maxGap = Math.max(maxGap, now - last);
          last = now;
          ticks++;
        }, 5);
        const started = performance.now();
        await slow.upscale({ input, target: '3k', format: 'png', quality: 'balanced' });
        const elapsed = performance.now() - started;
        clearInterval(timer);
        // Ratios within the run (contributing/README.md: no absolute timings): the timer fired for at least a third of the
        // slots it had, and no single gap took more than a quarter of the job.
        expect(ticks).toBeGreaterThan(elapsed / 5 / 3);
        expect(maxGap).toBeLessThan(elapsed / 4);
      } finally {
        await slow.close();
      }
    });

    it('stops a running job between tiles when its signal aborts (EngineCancelledError) and runs the next job', async () => {
      const slow = slowX3Registry();
      const networks = Object.fromEntries(Object.entries(slow.networks).map(([id, n]) => [id, { ...n, tile: 16 }]));
      const tiny = await createEngine({ registry: { ...slow, networks } });
      try {
        const input = await noisy(160, 160).png().toBuffer();
        const started = performance.now();
        const heard: [number, number, number][] = [];
        const whole = await tiny.upscale({
          input,
          target: '3k',
          format: 'png',
          quality: 'balanced',
          onProgress: (fraction, done, total) => heard.push([fraction, done, total]),
        });
        const fullMs = performance.now() - started;
        expect(whole.tiles).toBe(100);
        // progress: after every tile, in order, ending at 1
        expect(heard).toEqual(Array.from({ length: 100 }, (_, i) => [(i + 1) / 100, i + 1, 100]));
        const ac = new AbortController();
        const t0 = performance.now();
        const job = tiny.upscale({ input, target: '3k', format: 'png', quality: 'balanced', signal: ac.signal });
        setTimeout(() => ac.abort(), fullMs / 4);
        await expect(job).rejects.toBeInstanceOf(EngineCancelledError);
        expect(performance.now() - t0).toBeLessThan(fullMs * 0.8);
        const pre = new AbortController();
        pre.abort();
        await expect(tiny.upscale({ input, target: '2k', format: 'png', quality: 'fast', signal: pre.signal })).rejects.toBeInstanceOf(
          EngineCancelledError,
        );
        expect((await tiny.upscale({ input, target: '2k', format: 'png', quality: 'fast' })).width).toBe(320);
      } finally {
        await tiny.close();
      }
    });
  });
});
