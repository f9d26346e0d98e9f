import { lumaY, psnr, scoreY, shave, ssim } from './metrics';

describe('quality metrics on Y', () => {
  it('PSNR of an error of 1 everywhere is 20 log10(255) = 48.1308 dB', () => {
    const a = new Float64Array(100).fill(10);
    const b = new Float64Array(100).fill(11);
    expect(psnr(a, b)).toBeCloseTo(48.1308, 4);
    expect(psnr(a, a)).toBe(Infinity);
  });

  it('PSNR of a mean squared error of 100 is 28.1308 dB', () => {
    const a = new Float64Array([0, 0, 0, 0]);
    const b = new Float64Array([10, -10, 10, -10]);
    expect(psnr(a, b)).toBeCloseTo(28.1308, 4);
  });

  it('Y is MATLAB rgb2ycbcr luma, rounded: black 16, white 235, pure red 81; gray is scored as is', () => {
    const img = { width: 3, height: 1, channels: 3, data: Uint8Array.from([0, 0, 0, 255, 255, 255, 255, 0, 0]) };
    expect(Array.from(lumaY(img))).toEqual([16, 235, 81]);
    const gray = { width: 2, height: 1, channels: 1, data: Uint8Array.from([0, 255]) };
    expect(Array.from(lumaY(gray))).toEqual([0, 255]);
  });

  it('SSIM is 1 for identical images and drops for a distorted one', () => {
    const w = 24;
    const a = Float64Array.from({ length: w * w }, (_, i) => (i * 37) % 251);
    expect(ssim(a, a, w, w)).toBeCloseTo(1, 12);
    const inverted = a.map((v) => 255 - v);
    expect(ssim(a, inverted, w, w)).toBeLessThan(0);
    const brighter = a.map((v) => v + 10);
    expect(ssim(a, brighter, w, w)).toBeGreaterThan(0.9);
    expect(ssim(a, brighter, w, w)).toBeLessThan(1);
  });

  it('shaves the border before scoring', () => {
    const y = Float64Array.from({ length: 16 }, (_, i) => i);
    expect(Array.from(shave(y, 4, 4, 1).data)).toEqual([5, 6, 9, 10]);
    const img = { width: 16, height: 16, channels: 3, data: new Uint8Array(16 * 16 * 3).fill(100) };
    const other = { ...img, data: img.data.slice() };
    other.data[0] = 0; // in the shaved border: does not count
    expect(scoreY(other, img, 2).psnr).toBe(Infinity);
  });
});
