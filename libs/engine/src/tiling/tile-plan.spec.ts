import { planTiles } from './tile-plan';

describe('planTiles', () => {
  it('covers every pixel exactly once with cores of at most `tile` pixels', () => {
    for (const [w, h, tile] of [
      [1, 1, 8],
      [100, 37, 16],
      [513, 256, 256],
      [31, 64, 31],
    ]) {
      const seen = new Uint8Array(w * h);
      for (const t of planTiles(w, h, tile, 5)) {
        expect(t.width).toBeLessThanOrEqual(tile);
        expect(t.height).toBeLessThanOrEqual(tile);
        for (let y = t.y; y < t.y + t.height; y++) for (let x = t.x; x < t.x + t.width; x++) seen[y * w + x]++;
      }
      expect(seen.every((v) => v === 1)).toBe(true);
    }
  });

  it('feeds each core with a halo of `radius` pixels, clipped at the image border', () => {
    const tiles = planTiles(100, 50, 40, 10);
    expect(tiles).toHaveLength(3 * 2);
    expect(tiles[0]).toEqual({ x: 0, y: 0, width: 33, height: 25, inX: 0, inY: 0, inWidth: 43, inHeight: 35 });
    expect(tiles[1]).toEqual({ x: 33, y: 0, width: 34, height: 25, inX: 23, inY: 0, inWidth: 54, inHeight: 35 });
    expect(tiles[5]).toEqual({ x: 67, y: 25, width: 33, height: 25, inX: 57, inY: 15, inWidth: 43, inHeight: 35 });
  });

  it('splits into equal cores rather than full tiles and a thin remainder', () => {
    expect(planTiles(257, 10, 256, 0).map((t) => t.width)).toEqual([129, 128]);
  });

  it('uses one tile when the image fits', () => {
    expect(planTiles(64, 64, 256, 10)).toEqual([{ x: 0, y: 0, width: 64, height: 64, inX: 0, inY: 0, inWidth: 64, inHeight: 64 }]);
  });

  it('refuses sizes that are not positive integers', () => {
    expect(() => planTiles(0, 10, 8, 1)).toThrow(RangeError);
    expect(() => planTiles(10, 10, 0, 1)).toThrow(RangeError);
    expect(() => planTiles(10, 10, 8, -1)).toThrow(RangeError);
  });
});
