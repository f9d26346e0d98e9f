/**
 * MATLAB's `imresize(img, scale, 'bicubic')` for uint8 images, antialiasing on (MATLAB's default), reproduced
 * from its documented algorithm (toolbox/images/images/imresize.m): Keys cubic kernel with a = -0.5, widened by
 * 1/scale when shrinking, weights normalised per output pixel, symmetric (mirror) padding, height resized before
 * width, double precision in between, rounded and saturated to uint8 at the end. The super-resolution papers'
 * low-resolution inputs and their "bicubic" baseline rows are made with exactly this.
 */
export interface Plane {
  width: number;
  height: number;
  channels: number;
  /** Interleaved samples, row-major. */
  data: Uint8Array;
}

function cubic(x: number): number {
  const a = Math.abs(x);
  const a2 = a * a;
  const a3 = a2 * a;
  if (a <= 1) return 1.5 * a3 - 2.5 * a2 + 1;
  if (a <= 2) return -0.5 * a3 + 2.5 * a2 - 4 * a + 2;
  return 0;
}

interface Contributions {
  /** per output index: input indices (0-based) and weights */
  indices: Int32Array[];
  weights: Float64Array[];
}

export function contributions(inLength: number, outLength: number, scale: number, antialiasing = true): Contributions {
  const shrink = scale < 1 && antialiasing;
  const kernelWidth = shrink ? 4 / scale : 4;
  const h = shrink ? (x: number) => scale * cubic(scale * x) : cubic;
  const P = Math.ceil(kernelWidth) + 2;
  const indices: Int32Array[] = [];
  const weights: Float64Array[] = [];
  for (let x = 1; x <= outLength; x++) {
    const u = x / scale + 0.5 * (1 - 1 / scale);
    const left = Math.floor(u - kernelWidth / 2);
    const idx: number[] = [];
    const w: number[] = [];
    for (let p = 0; p < P; p++) {
      idx.push(left + p);
      w.push(h(u - (left + p)));
    }
    const sum = w.reduce((a, b) => a + b, 0);
    const ws = w.map((v) => v / sum);
    // Mirror padding: MATLAB's aux = [1:in, in:-1:1] indexed modulo 2*in.
    const mirrored = idx.map((i) => {
      const m = (((i - 1) % (2 * inLength)) + 2 * inLength) % (2 * inLength);
      return m < inLength ? m : 2 * inLength - 1 - m;
    });
    // MATLAB drops the kernel columns that are zero for every output pixel; zero weights add nothing here.
    indices.push(Int32Array.from(mirrored));
    weights.push(Float64Array.from(ws));
  }
  return { indices, weights };
}

function resizeAxis(src: Float64Array, w: number, h: number, c: number, axis: 0 | 1, outLen: number, scale: number): Float64Array {
  const inLen = axis === 0 ? h : w;
  const { indices, weights } = contributions(inLen, outLen, scale);
  const ow = axis === 0 ? w : outLen;
  const oh = axis === 0 ? outLen : h;
  const out = new Float64Array(ow * oh * c);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      const o = axis === 0 ? y : x;
      const idx = indices[o];
      const wt = weights[o];
      for (let ch = 0; ch < c; ch++) {
        let acc = 0;
        for (let k = 0; k < idx.length; k++) {
          const sy = axis === 0 ? idx[k] : y;
          const sx = axis === 0 ? x : idx[k];
          acc += wt[k] * src[(sy * w + sx) * c + ch];
        }
        out[(y * ow + x) * c + ch] = acc;
      }
    }
  }
  return out;
}

/** imresize(img, scale, 'bicubic') on uint8: output size ceil(in * scale), MATLAB rounding (half away from zero). */
export function imresizeBicubic(img: Plane, scale: number): Plane {
  const outH = Math.ceil(img.height * scale);
  const outW = Math.ceil(img.width * scale);
  const c = img.channels;
  let data = Float64Array.from(img.data);
  // Same scale on both axes: MATLAB resizes dimension 1 (rows, i.e. along the height) first.
  data = resizeAxis(data, img.width, img.height, c, 0, outH, scale);
  data = resizeAxis(data, img.width, outH, c, 1, outW, scale);
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = Math.min(255, Math.max(0, Math.round(data[i])));
  return { width: outW, height: outH, channels: c, data: out };
}

/** Crops to a multiple of `scale` from the top-left, as the benchmark protocol's modcrop does. */
export function modcrop(img: Plane, scale: number): Plane {
  const w = img.width - (img.width % scale);
  const h = img.height - (img.height % scale);
  const c = img.channels;
  const out = new Uint8Array(w * h * c);
  for (let y = 0; y < h; y++) out.set(img.data.subarray(y * img.width * c, (y * img.width + w) * c), y * w * c);
  return { width: w, height: h, channels: c, data: out };
}
