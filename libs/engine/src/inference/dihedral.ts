/**
 * The eight symmetries of the square (the dihedral group D4) on planar float images (C x H x W, channel after
 * channel), for geometric self-ensembling (Lim et al., EDSR+; Timofte et al., "Seven ways to improve
 * example-based single image super resolution"): a network sees its input rotated and mirrored eight ways, each
 * output is turned back, and the eight are averaged. Pure, no I/O.
 *
 * Transform t in 0..7: rotate by (t >> 1) quarter turns counter-clockwise (numpy.rot90), then, when t is odd,
 * mirror left-right.
 */
export const DIHEDRAL_TRANSFORMS: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7];

/**
 * Whether `transforms` is a self-ensemble the engine runs: distinct transforms 0..7, two, four or eight of them (a
 * power of two, so the mean's 1/n is exact in float32), the identity first.
 */
export function isDihedralSubset(transforms: readonly number[]): boolean {
  const n = transforms.length;
  return (
    (n === 2 || n === 4 || n === 8) &&
    transforms[0] === 0 &&
    new Set(transforms).size === n &&
    transforms.every((t) => Number.isInteger(t) && t >= 0 && t <= 7)
  );
}

/** Height and width of an h x w image after transform t. */
export function dihedralDims(t: number, h: number, w: number): [number, number] {
  return (t >> 1) % 2 === 1 ? [w, h] : [h, w];
}

/**
 * Where pixel (y, x) of an h x w image lands after transform t, as an index into the transformed plane.
 * Quarter turn counter-clockwise: (y, x) -> (w-1-x, y); half turn: (h-1-y, w-1-x); three quarters: (x, h-1-y).
 */
function landing(t: number, h: number, w: number): (y: number, x: number) => number {
  const [, tw] = dihedralDims(t, h, w);
  const flip = (t & 1) === 1;
  const col = (c: number) => (flip ? tw - 1 - c : c);
  switch (t >> 1) {
    case 0:
      return (y, x) => y * tw + col(x);
    case 1:
      return (y, x) => (w - 1 - x) * tw + col(y);
    case 2:
      return (y, x) => (h - 1 - y) * tw + col(w - 1 - x);
    default:
      return (y, x) => x * tw + col(h - 1 - y);
  }
}

/** Transform t of a planar image of `channels` planes, h x w each (a new array; dims from dihedralDims). */
export function toDihedral(src: Float32Array, channels: number, h: number, w: number, t: number): Float32Array {
  const n = h * w;
  const dst = new Float32Array(channels * n);
  const at = landing(t, h, w);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const from = y * w + x;
      const to = at(y, x);
      for (let c = 0; c < channels; c++) dst[c * n + to] = src[c * n + from];
    }
  }
  return dst;
}

/**
 * Adds the inverse of transform t of `transformed` (planes of dihedralDims(t, h, w)) into `acc` (planes h x w):
 * acc[y, x] += transformed[where (y, x) landed].
 */
export function addFromDihedral(acc: Float32Array, transformed: Float32Array, channels: number, h: number, w: number, t: number): void {
  const n = h * w;
  const at = landing(t, h, w);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const to = y * w + x;
      const from = at(y, x);
      for (let c = 0; c < channels; c++) acc[c * n + to] += transformed[c * n + from];
    }
  }
}

/**
 * The transforms a registry entry's `selfEnsemble` asks for: `true` all eight, a list those, else none (one pass).
 */
export function ensembleTransforms(selfEnsemble: boolean | readonly number[] | undefined): readonly number[] | undefined {
  if (selfEnsemble === true) return DIHEDRAL_TRANSFORMS;
  return Array.isArray(selfEnsemble) ? selfEnsemble : undefined;
}

/**
 * The mean of a network's outputs over `transforms` (default all eight; isDihedralSubset) of one planar RGB input
 * (h x w; the output is `scale` times larger): each transformed input runs through `run`, its output is turned
 * back and added, in the order listed, in float32; the sum is multiplied by 1/n (a power of two: exact).
 * Deterministic.
 */
export async function selfEnsemble(
  run: (planar: Float32Array, h: number, w: number) => Promise<Float32Array>,
  planar: Float32Array,
  h: number,
  w: number,
  scale: number,
  transforms: readonly number[] = DIHEDRAL_TRANSFORMS,
): Promise<Float32Array> {
  if (!isDihedralSubset(transforms)) throw new Error(`not a self-ensemble: transforms [${transforms.join(', ')}]`);
  const acc = new Float32Array(3 * h * scale * w * scale);
  for (const t of transforms) {
    const [th, tw] = dihedralDims(t, h, w);
    addFromDihedral(acc, await run(toDihedral(planar, 3, h, w, t), th, tw), 3, h * scale, w * scale, t);
  }
  const inv = 1 / transforms.length;
  for (let i = 0; i < acc.length; i++) acc[i] *= inv;
  return acc;
}
