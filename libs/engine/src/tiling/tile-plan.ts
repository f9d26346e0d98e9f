/**
 * Exact tiling: the image is cut into cores of at most `tile` x `tile` input pixels; each core is run through
 * the network with a halo of `radius` pixels (the network's receptive radius, clipped at the image border) and
 * only the core's output is kept. Every output pixel then sees exactly the input pixels, and the same zero
 * padding at the image border, that it sees in a full-frame run: tiled output == full-frame output, bit for bit.
 */
export interface Tile {
  /** The core, in input pixels: its upscaled version is what this tile writes. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** The region fed to the network: the core plus the halo, clipped to the image. */
  inX: number;
  inY: number;
  inWidth: number;
  inHeight: number;
}

export function planTiles(width: number, height: number, tile: number, radius: number): Tile[] {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`image size must be positive integers, got ${width}x${height}`);
  }
  if (!(Number.isInteger(tile) && tile > 0 && Number.isInteger(radius) && radius >= 0)) {
    throw new RangeError(`tile must be a positive integer and radius a non-negative integer`);
  }
  const cuts = (size: number): number[] => {
    // Equal-sized cores (rather than full tiles and a thin remainder) keep the halo overhead even.
    const n = Math.ceil(size / tile);
    const bounds: number[] = [];
    for (let i = 0; i <= n; i++) bounds.push(Math.round((i * size) / n));
    return bounds;
  };
  const xs = cuts(width);
  const ys = cuts(height);
  const tiles: Tile[] = [];
  for (let j = 0; j + 1 < ys.length; j++) {
    for (let i = 0; i + 1 < xs.length; i++) {
      const x = xs[i];
      const y = ys[j];
      const w = xs[i + 1] - x;
      const h = ys[j + 1] - y;
      const inX = Math.max(0, x - radius);
      const inY = Math.max(0, y - radius);
      tiles.push({
        x,
        y,
        width: w,
        height: h,
        inX,
        inY,
        inWidth: Math.min(width, x + w + radius) - inX,
        inHeight: Math.min(height, y + h + radius) - inY,
      });
    }
  }
  return tiles;
}
