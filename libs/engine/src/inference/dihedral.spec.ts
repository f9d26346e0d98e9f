import {
  addFromDihedral,
  DIHEDRAL_TRANSFORMS,
  dihedralDims,
  ensembleTransforms,
  isDihedralSubset,
  selfEnsemble,
  toDihedral,
} from './dihedral';

// One channel, 2 x 3:  1 2 3
//                      4 5 6
const img = Float32Array.from([1, 2, 3, 4, 5, 6]);

describe('dihedral transforms (self-ensemble)', () => {
  it.each([
    [0, [2, 3], [1, 2, 3, 4, 5, 6]],
    [1, [2, 3], [3, 2, 1, 6, 5, 4]], // mirrored
    [2, [3, 2], [3, 6, 2, 5, 1, 4]], // quarter turn counter-clockwise (numpy.rot90)
    [3, [3, 2], [6, 3, 5, 2, 4, 1]], // quarter turn, mirrored
    [4, [2, 3], [6, 5, 4, 3, 2, 1]], // half turn
    [5, [2, 3], [4, 5, 6, 1, 2, 3]], // half turn, mirrored (= upside down)
    [6, [3, 2], [4, 1, 5, 2, 6, 3]], // three quarter turns
    [7, [3, 2], [1, 4, 2, 5, 3, 6]], // three quarter turns, mirrored (= transpose)
  ])('transform %i gives dims %j and pixels %j', (t, dims, pixels) => {
    expect(dihedralDims(t, 2, 3)).toEqual(dims);
    expect([...toDihedral(img, 1, 2, 3, t)]).toEqual(pixels);
  });

  it('moves every channel plane alike', () => {
    const two = Float32Array.from([1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60]);
    expect([...toDihedral(two, 2, 2, 3, 2)]).toEqual([3, 6, 2, 5, 1, 4, 30, 60, 20, 50, 10, 40]);
  });

  it('addFromDihedral undoes each transform and adds: the eight together give 8x the image', () => {
    const three = Float32Array.from({ length: 3 * 4 * 5 }, (_, i) => (i * 7) % 11);
    const acc = new Float32Array(three.length);
    for (const t of DIHEDRAL_TRANSFORMS) {
      const once = new Float32Array(three.length);
      addFromDihedral(once, toDihedral(three, 3, 4, 5, t), 3, 4, 5, t);
      expect([...once]).toEqual([...three]);
      addFromDihedral(acc, toDihedral(three, 3, 4, 5, t), 3, 4, 5, t);
    }
    expect([...acc]).toEqual([...three].map((v) => 8 * v));
  });

  /** A stand-in x2 network: nearest-neighbour upsampling, which commutes with every rotation and mirroring. */
  const nearestX2 = (planar: Float32Array, h: number, w: number) => {
    const out = new Float32Array(3 * 4 * h * w);
    for (let c = 0; c < 3; c++)
      for (let y = 0; y < 2 * h; y++)
        for (let x = 0; x < 2 * w; x++) out[c * 4 * h * w + y * 2 * w + x] = planar[c * h * w + (y >> 1) * w + (x >> 1)];
    return Promise.resolve(out);
  };

  it('selfEnsemble of a network that commutes with the transforms is that network, run once per transform', async () => {
    const planar = Float32Array.from({ length: 3 * 3 * 2 }, (_, i) => i * 1.5);
    let calls = 0;
    const counted = (p: Float32Array, h: number, w: number) => {
      calls++;
      return nearestX2(p, h, w);
    };
    expect([...(await selfEnsemble(counted, planar, 3, 2, 2))]).toEqual([...(await nearestX2(planar, 3, 2))]);
    expect(calls).toBe(8);
  });

  it('selfEnsemble averages what a network that sees orientation does: a column-number output averages to the middle', async () => {
    // Outputs the column number of each output pixel, whatever the input: over the eight orientations of a square
    // every pixel is seen as often at column c as at column 3 - c, so the mean is 1.5 everywhere.
    const columns = (_: Float32Array, h: number, w: number) =>
      Promise.resolve(Float32Array.from({ length: 3 * 4 * h * w }, (_, i) => i % (2 * w)));
    expect([...(await selfEnsemble(columns, new Float32Array(3 * 2 * 2), 2, 2, 2))]).toEqual(new Array(3 * 16).fill(1.5));
  });

  it('a two-pass ensemble runs the identity and the transform listed, and averages those two', async () => {
    let calls = 0;
    const columns = (_: Float32Array, h: number, w: number) => {
      calls++;
      return Promise.resolve(Float32Array.from({ length: 3 * 4 * h * w }, (_, i) => i % (2 * w)));
    };
    // Transform 6 turns the 4 x 4 output three quarters: output pixel (y, x) sits in column 3 - y there, so the
    // mean of the two passes is (x + 3 - y) / 2.
    const plane = [0, 1, 2, 3].flatMap((y) => [0, 1, 2, 3].map((x) => (x + 3 - y) / 2));
    expect([...(await selfEnsemble(columns, new Float32Array(3 * 2 * 2), 2, 2, 2, [0, 6]))]).toEqual([...plane, ...plane, ...plane]);
    expect(calls).toBe(2);
    await expect(selfEnsemble(columns, new Float32Array(12), 2, 2, 2, [6, 0])).rejects.toThrow('not a self-ensemble: transforms [6, 0]');
  });

  it("runs two, four or eight distinct transforms, the identity first; a registry entry's true means all eight", () => {
    expect([[0, 6], [0, 1, 4, 5], [...DIHEDRAL_TRANSFORMS]].map(isDihedralSubset)).toEqual([true, true, true]);
    expect([[0], [6, 0], [0, 0], [0, 6, 2], [0, 8], [0, 1.5], []].map(isDihedralSubset)).toEqual(new Array(7).fill(false));
    expect([ensembleTransforms(true), ensembleTransforms([0, 6]), ensembleTransforms(false), ensembleTransforms(undefined)]).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7],
      [0, 6],
      undefined,
      undefined,
    ]);
  });
});
