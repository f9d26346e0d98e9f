import { lumaY, type Plane } from '@upscaler/engine';

/** Side of the blocks the original is judged flat or not by (original pixels). */
export const FLAT_BLOCK = 8;
/** A block is flat when the original's luma varies less than this (standard deviation, grey levels). */
export const FLAT_STD = 1.5;

/** The flat blocks of an original: their top-left corners (blocks fully inside, `border` pixels kept clear). */
export function flatBlocks(hr: Plane, border: number): Array<[number, number]> {
  const y = lumaY(hr);
  const blocks: Array<[number, number]> = [];
  for (let by = border; by + FLAT_BLOCK <= hr.height - border; by += FLAT_BLOCK) {
    for (let bx = border; bx + FLAT_BLOCK <= hr.width - border; bx += FLAT_BLOCK) {
      let s = 0;
      let s2 = 0;
      for (let j = 0; j < FLAT_BLOCK; j++) {
        for (let i = 0; i < FLAT_BLOCK; i++) {
          const v = y[(by + j) * hr.width + bx + i];
          s += v;
          s2 += v * v;
        }
      }
      const n = FLAT_BLOCK * FLAT_BLOCK;
      const variance = s2 / n - (s / n) ** 2;
      if (Math.sqrt(Math.max(0, variance)) < FLAT_STD) blocks.push([bx, by]);
    }
  }
  return blocks;
}

/**
 * Detail in the original's flat areas: the mean absolute 3x3 Laplacian of the image's luma (BT.601, grey levels)
 * over the pixels of `blocks`. The original itself scores its sensor grain; an upscale that smooths scores less,
 * one that turns JPEG ringing and blocks into specks and strokes scores more: the measure of invented texture.
 * Null when there are no flat blocks.
 */
export function flatDetail(img: Plane, blocks: ReadonlyArray<readonly [number, number]>): number | null {
  if (blocks.length === 0) return null;
  const y = lumaY(img);
  const w = img.width;
  let sum = 0;
  let n = 0;
  for (const [bx, by] of blocks) {
    for (let j = 0; j < FLAT_BLOCK; j++) {
      for (let i = 0; i < FLAT_BLOCK; i++) {
        const x = bx + i;
        const yy = by + j;
        if (x < 1 || yy < 1 || x >= w - 1 || yy >= img.height - 1) continue;
        const c = y[yy * w + x];
        const lap =
          8 * c -
          (y[(yy - 1) * w + x - 1] +
            y[(yy - 1) * w + x] +
            y[(yy - 1) * w + x + 1] +
            y[yy * w + x - 1] +
            y[yy * w + x + 1] +
            y[(yy + 1) * w + x - 1] +
            y[(yy + 1) * w + x] +
            y[(yy + 1) * w + x + 1]);
        sum += Math.abs(lap) / 8;
        n++;
      }
    }
  }
  return n === 0 ? null : sum / n;
}
