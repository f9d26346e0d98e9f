import { contributions, imresizeBicubic, modcrop } from './matlab-imresize';

describe('MATLAB imresize bicubic', () => {
  it('uses the antialiased x1/2 kernel MATLAB uses: weights -0.01171875 -0.03515625 0.11328125 0.43359375 (mirrored)', () => {
    const { indices, weights } = contributions(16, 8, 0.5);
    // Output pixel 4 (1-based) is centred at u = 4/0.5 + 0.5(1 - 2) = 7.5 (1-based): taps 4..11, i.e. 3..10 0-based.
    const w = Array.from(weights[3]);
    const idx = Array.from(indices[3]);
    const nonZero = idx.map((i, k) => [i, w[k]]).filter(([, v]) => Math.abs(v) > 1e-12);
    expect(nonZero.map(([i]) => i)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(nonZero.map(([, v]) => v)).toEqual([
      -0.01171875, -0.03515625, 0.11328125, 0.43359375, 0.43359375, 0.11328125, -0.03515625, -0.01171875,
    ]);
  });

  it('mirrors at the border as MATLAB does (index 0 -> 1, -1 -> 2)', () => {
    const { indices } = contributions(16, 8, 0.5);
    expect(Array.from(indices[0]).slice(0, 5)).toEqual([3, 2, 1, 0, 0]);
  });

  it('uses the plain Keys kernel when enlarging: x2 weights -0.0703125 0.8671875 0.2265625 -0.0234375', () => {
    // Output 6 (1-based) sits at u = 6/2 + 0.5(1 - 1/2) = 3.25: taps 2..5 at distances 1.25, 0.25, -0.75, -1.75.
    const { weights, indices } = contributions(8, 16, 2);
    const taps = Array.from(indices[5])
      .map((i, k) => [i, weights[5][k]])
      .filter(([, v]) => Math.abs(v) > 1e-12);
    expect(taps).toEqual([
      [1, -0.0703125],
      [2, 0.8671875],
      [3, 0.2265625],
      [4, -0.0234375],
    ]);
  });

  it('keeps a constant image constant and rounds to uint8', () => {
    const img = { width: 6, height: 4, channels: 3, data: new Uint8Array(6 * 4 * 3).fill(77) };
    const small = imresizeBicubic(img, 1 / 2);
    expect([small.width, small.height]).toEqual([3, 2]);
    expect(Array.from(small.data).every((v) => v === 77)).toBe(true);
  });

  it('downscales a ramp to the MATLAB values', () => {
    // Worked by hand from the algorithm: the first output mirrors [64 32 0 | 0 32 64 96 128] under the weights
    // above: -0.75 - 1.125 + 13.875 + 7.25 - 3.375 - 1.5 = 14.375 -> 14; the second is 79.625 -> 80; the ramp's
    // symmetry gives 224 - 79.625 and 224 - 14.375 for the last two.
    const row = { width: 8, height: 1, channels: 1, data: Uint8Array.from([0, 32, 64, 96, 128, 160, 192, 224]) };
    const out = imresizeBicubic(row, 0.5);
    const expected = [0, 1, 2, 3].map((o) => {
      const { indices, weights } = contributions(8, 4, 0.5);
      return Math.round(Array.from(indices[o]).reduce((acc, i, k) => acc + weights[o][k] * row.data[i], 0));
    });
    expect(Array.from(out.data)).toEqual(expected);
    expect(Array.from(out.data)).toEqual([14, 80, 144, 210]);
  });

  it('modcrop keeps the top-left multiple of the scale', () => {
    const img = { width: 5, height: 4, channels: 1, data: Uint8Array.from({ length: 20 }, (_, i) => i) };
    const c = modcrop(img, 3);
    expect([c.width, c.height]).toEqual([3, 3]);
    expect(Array.from(c.data)).toEqual([0, 1, 2, 5, 6, 7, 10, 11, 12]);
  });
});
