import type { Plane } from './matlab-imresize';

/**
 * The luma the benchmark protocol scores: MATLAB rgb2ycbcr on uint8 RGB (BT.601, studio range),
 * Y = 16 + (65.481 R + 128.553 G + 24.966 B) / 255, rounded to uint8 as MATLAB returns it. A single-channel
 * image is scored as it is (the MATLAB scripts convert only 3-channel images): with that, Set14's bicubic row
 * (which includes the grayscale "bridge") matches the published 30.24 dB; scoring bridge as 16-235 luma
 * would add 0.09 dB to the average.
 */
export function lumaY(img: Plane): Float64Array {
  const n = img.width * img.height;
  const y = new Float64Array(n);
  const c = img.channels;
  if (c === 1) {
    for (let i = 0; i < n; i++) y[i] = img.data[i];
    return y;
  }
  for (let i = 0; i < n; i++) {
    const r = img.data[i * c];
    const g = img.data[i * c + 1];
    const b = img.data[i * c + 2];
    y[i] = Math.round(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255);
  }
  return y;
}

/** Drops `border` pixels on every side (the protocol shaves `scale` pixels before scoring). */
export function shave(
  y: Float64Array,
  width: number,
  height: number,
  border: number,
): { data: Float64Array; width: number; height: number } {
  const w = width - 2 * border;
  const h = height - 2 * border;
  const out = new Float64Array(w * h);
  for (let r = 0; r < h; r++) out.set(y.subarray((r + border) * width + border, (r + border) * width + border + w), r * w);
  return { data: out, width: w, height: h };
}

export function psnr(a: Float64Array, b: Float64Array, peak = 255): number {
  if (a.length !== b.length) throw new RangeError('psnr: sizes differ');
  let se = 0;
  for (let i = 0; i < a.length; i++) se += (a[i] - b[i]) ** 2;
  const mse = se / a.length;
  return mse === 0 ? Infinity : 10 * Math.log10((peak * peak) / mse);
}

function gaussianWindow(size = 11, sigma = 1.5): Float64Array {
  const w = new Float64Array(size * size);
  const r = (size - 1) / 2;
  let sum = 0;
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const v = Math.exp(-((x - r) ** 2 + (y - r) ** 2) / (2 * sigma * sigma));
      w[y * size + x] = v;
      sum += v;
    }
  for (let i = 0; i < w.length; i++) w[i] /= sum;
  return w;
}

/** SSIM of Wang et al. 2004 (ssim_index.m): 11x11 Gaussian window, sigma 1.5, K = (0.01, 0.03), L = 255, 'valid' area. */
export function ssim(a: Float64Array, b: Float64Array, width: number, height: number, peak = 255): number {
  const win = gaussianWindow();
  const k = 11;
  const C1 = (0.01 * peak) ** 2;
  const C2 = (0.03 * peak) ** 2;
  let total = 0;
  let count = 0;
  for (let y = 0; y + k <= height; y++) {
    for (let x = 0; x + k <= width; x++) {
      let ma = 0;
      let mb = 0;
      let saa = 0;
      let sbb = 0;
      let sab = 0;
      for (let j = 0; j < k; j++) {
        const row = (y + j) * width + x;
        for (let i = 0; i < k; i++) {
          const wv = win[j * k + i];
          const va = a[row + i];
          const vb = b[row + i];
          ma += wv * va;
          mb += wv * vb;
          saa += wv * va * va;
          sbb += wv * vb * vb;
          sab += wv * va * vb;
        }
      }
      const va = saa - ma * ma;
      const vb = sbb - mb * mb;
      const cov = sab - ma * mb;
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      count++;
    }
  }
  return total / count;
}

/** PSNR and SSIM on Y with `scale` pixels shaved: the standard super-resolution score. */
export function scoreY(sr: Plane, hr: Plane, scale: number): { psnr: number; ssim: number } {
  if (sr.width !== hr.width || sr.height !== hr.height) throw new RangeError(`score: ${sr.width}x${sr.height} vs ${hr.width}x${hr.height}`);
  const a = shave(lumaY(sr), sr.width, sr.height, scale);
  const b = shave(lumaY(hr), hr.width, hr.height, scale);
  return { psnr: psnr(a.data, b.data), ssim: ssim(a.data, b.data, a.width, a.height) };
}
