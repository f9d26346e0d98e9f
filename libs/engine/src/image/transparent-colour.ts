import type { RawImage } from './decode-image';

/**
 * The colour under fully transparent pixels, filled in from the nearest visible ones, before the network sees the
 * image. Editors leave anything there (mostly black): the network, which never sees alpha, would smear that colour
 * across the object's edge, and the upscaled edge, half transparent, would show it as a dark outline once
 * flattened (a cut-out on a white page: measured by transparent-colour.spec.ts and the engine's cut-out test).
 *
 * Push-pull fill, our own code rather than a library's (none fills raw buffers; libvips has no such operation): the
 * visible colour, weighted by alpha, is box-blurred at growing radii (three passes each, close to a Gaussian), and
 * each transparent pixel takes the colour of the smallest radius that reaches a visible pixel. Visible pixels (alpha
 * above 0) keep their colour; alpha itself is not touched. Mutates `img.data`.
 */
export function fillTransparentColour(img: RawImage): void {
  const C = img.channels;
  if (C !== 2 && C !== 4) return;
  const colours = C - 1;
  const n = img.width * img.height;
  let transparent = 0;
  for (let i = 0; i < n; i++) if (img.data[i * C + colours] === 0) transparent++;
  if (transparent === 0 || transparent === n) return;
  // premultiplied colour planes and the weight plane
  const planes = Array.from({ length: colours }, () => new Float32Array(n));
  const weight = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const a = img.data[i * C + colours] / 255;
    weight[i] = a;
    for (let c = 0; c < colours; c++) planes[c][i] = img.data[i * C + c] * a;
  }
  const filled = new Uint8Array(n); // 1 once a transparent pixel has its colour
  let left = transparent;
  for (let radius = 2; left > 0 && radius <= MAX_RADIUS; radius *= 2) {
    const w = blur(weight, img.width, img.height, radius);
    const cs = planes.map((p) => blur(p, img.width, img.height, radius));
    for (let i = 0; i < n; i++) {
      if (filled[i] || img.data[i * C + colours] !== 0 || w[i] < 1e-4) continue;
      for (let c = 0; c < colours; c++) img.data[i * C + c] = Math.max(0, Math.min(255, Math.round(cs[c][i] / w[i])));
      filled[i] = 1;
      left--;
    }
  }
  if (left === 0) return;
  // Farther than the network can see from the edge: the mean visible colour.
  let total = 0;
  const mean = planes.map(() => 0);
  for (let i = 0; i < n; i++) {
    total += weight[i];
    for (let c = 0; c < colours; c++) mean[c] += planes[c][i];
  }
  for (let i = 0; i < n; i++) {
    if (filled[i] || img.data[i * C + colours] !== 0) continue;
    for (let c = 0; c < colours; c++) img.data[i * C + c] = Math.round(mean[c] / total);
  }
}

/** Beyond this many pixels from anything visible, the colour under transparency cannot reach the network's view of the edge. */
const MAX_RADIUS = 32;

/** Flattens an image with alpha onto white (JPEG output): out = colour x alpha + 255 x (1 - alpha). */
export function flattenOnWhite(img: RawImage): RawImage {
  const C = img.channels;
  if (C !== 2 && C !== 4) return img;
  const colours = C - 1;
  const n = img.width * img.height;
  const data = Buffer.allocUnsafe(n * colours);
  for (let i = 0; i < n; i++) {
    const a = img.data[i * C + colours] / 255;
    for (let c = 0; c < colours; c++) data[i * colours + c] = Math.round(img.data[i * C + c] * a + 255 * (1 - a));
  }
  return { data, width: img.width, height: img.height, channels: colours as 1 | 3 };
}

/** Three passes of a box blur of `radius` (close to a Gaussian of sigma ~ radius), edges clamped. */
function blur(src: Float32Array, width: number, height: number, radius: number): Float32Array {
  let a = src;
  for (let pass = 0; pass < 3; pass++) a = boxVertical(boxHorizontal(a, width, height, radius), width, height, radius);
  return a;
}

function boxHorizontal(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const out = new Float32Array(src.length);
  const span = 2 * r + 1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    for (let k = -r; k <= r; k++) sum += src[row + Math.min(width - 1, Math.max(0, k))];
    for (let x = 0; x < width; x++) {
      out[row + x] = sum / span;
      sum += src[row + Math.min(width - 1, x + r + 1)] - src[row + Math.max(0, x - r)];
    }
  }
  return out;
}

function boxVertical(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const out = new Float32Array(src.length);
  const span = 2 * r + 1;
  for (let x = 0; x < width; x++) {
    let sum = 0;
    for (let k = -r; k <= r; k++) sum += src[Math.min(height - 1, Math.max(0, k)) * width + x];
    for (let y = 0; y < height; y++) {
      out[y * width + x] = sum / span;
      sum += src[Math.min(height - 1, y + r + 1) * width + x] - src[Math.max(0, y - r) * width + x];
    }
  }
  return out;
}
