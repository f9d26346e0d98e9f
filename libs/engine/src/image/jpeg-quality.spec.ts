import { ANNEX_K_LUMA, estimateJpegQuality, ZIGZAG } from './jpeg-quality';

/** libjpeg's jpeg_set_quality: scale Annex K by s %, round, clamp to 1..255; stored in zigzag order. */
function dqt(quality: number, id = 0): number[] {
  const s = quality < 50 ? Math.floor(5000 / quality) : 200 - quality * 2;
  const natural = ANNEX_K_LUMA.map((v) => Math.min(255, Math.max(1, Math.floor((v * s + 50) / 100))));
  return [0xff, 0xdb, 0x00, 67, id, ...ZIGZAG.map((n) => natural[n])];
}

const APP0 = [0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46];
const jpeg = (...segments: number[][]) => Uint8Array.from([0xff, 0xd8, ...segments.flat(), 0xff, 0xda, 0x00, 0x02]);

describe('estimateJpegQuality', () => {
  it.each([5, 10, 25, 40, 50, 60, 75, 85, 90, 95, 98, 100])('gives back the quality libjpeg saved at (q %i)', (q) => {
    expect(estimateJpegQuality(jpeg(APP0, dqt(q)))).toBe(q);
  });

  it('reads table 0 even when the chroma table comes first in the segment list', () => {
    expect(estimateJpegQuality(jpeg(dqt(30, 1), dqt(80, 0)))).toBe(80);
  });

  it('answers undefined for a JPEG without a table 0 before its scan, and for bytes that are not a JPEG', () => {
    expect(estimateJpegQuality(jpeg(APP0))).toBeUndefined();
    expect(estimateJpegQuality(jpeg(dqt(80, 1)))).toBeUndefined();
    expect(estimateJpegQuality(Uint8Array.from([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
    expect(estimateJpegQuality(Uint8Array.from([0xff, 0xd8, 0xff, 0xdb, 0x00, 0x50, 0x00]))).toBeUndefined(); // truncated
  });
});
