/**
 * The IJG / libjpeg quality (1-100) a JPEG was saved at, estimated from its luminance quantisation table
 * (DQT, table 0) the way ImageMagick and libjpeg's `jpeg_quality_scaling` define it: every encoder that takes a
 * "quality" (libjpeg, mozjpeg, cameras and phones that follow Annex K) scales the standard Annex K table by
 * `s = q < 50 ? 5000 / q : 200 - 2q` percent. Inverting the mean scale gives the quality back, exactly for
 * libjpeg-made files and approximately for encoders with their own tables. Pure: bytes in, number out.
 * Answers undefined for a JPEG without a table 0 before the first scan, or bytes that are not a JPEG.
 */

/** ITU-T T.81 Annex K, table K.1 (luminance), in natural (row-major) order. */
export const ANNEX_K_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22,
  37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];

/** Zigzag position -> natural position (T.81 figure A.6): DQT stores coefficients in zigzag order. */
export const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57,
  50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

export function estimateJpegQuality(bytes: Uint8Array): number | undefined {
  const table = lumaTable(bytes);
  if (!table) return undefined;
  if (table.every((v) => v === 1)) return 100; // libjpeg's q 100 (s = 0, every entry clamped up to 1)
  // Mean scale in percent against Annex K, over the entries libjpeg did not clamp to 255 (at low qualities the
  // coarse high-frequency entries hit the cap and would pull the estimate up).
  let sum = 0;
  let n = 0;
  for (let i = 0; i < 64; i++) {
    if (table[i] >= 255) continue;
    sum += (table[i] * 100) / ANNEX_K_LUMA[i];
    n++;
  }
  if (n === 0) return 1;
  const scale = sum / n;
  const quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale;
  return Math.max(1, Math.min(100, Math.round(quality)));
}

/** Table 0 from the first DQT segments before the first scan, in natural order; undefined when absent. */
function lumaTable(b: Uint8Array): number[] | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return undefined; // start of scan / end of image: no table 0 before
    const length = (b[i + 2] << 8) | b[i + 3];
    const end = i + 2 + length;
    if (length < 2 || end > b.length) return undefined;
    if (marker === 0xdb) {
      let p = i + 4;
      while (p < end) {
        const precision = b[p] >> 4; // 0: 8-bit entries, 1: 16-bit
        const id = b[p] & 0x0f;
        const size = precision ? 128 : 64;
        if (p + 1 + size > end) return undefined;
        if (id === 0) {
          const natural = new Array<number>(64);
          for (let k = 0; k < 64; k++) natural[ZIGZAG[k]] = precision ? (b[p + 1 + 2 * k] << 8) | b[p + 2 + 2 * k] : b[p + 1 + k];
          return natural;
        }
        p += 1 + size;
      }
    }
    i = end;
  }
  return undefined;
}
