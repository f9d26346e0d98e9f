import type { InferenceSession, Tensor as OrtTensor } from 'onnxruntime-node';
import type { RawImage } from '../image/decode-image';
import { planTiles } from '../tiling/tile-plan';
import { selfEnsemble } from './dihedral';

export interface NetworkSpec {
  id: string;
  path: string;
  scale: number;
  receptiveRadius: number;
  tile: number;
  /** Average the network's outputs over these rotations and mirrorings of each tile (inference/dihedral.ts). */
  selfEnsemble?: readonly number[];
  /**
   * The network takes the int64 input `crop` = [top, left, bottom, right] (registry's `tailRadius`): each tile's
   * low-resolution features are cropped to the core plus `tailRadius` before the upsampling tail runs.
   */
  tailRadius?: number;
  /** Output scale after resizing the network's output down (registry's `outscale`); applied by the caller. */
  outscale?: number;
}

export interface TensorCtor {
  new (type: 'float32', data: Float32Array, dims: number[]): OrtTensor;
  new (type: 'int64', data: BigInt64Array, dims: number[]): OrtTensor;
}

/**
 * Runs the colour of `img` through the network tile by tile (tiling/tile-plan.ts) and writes the result into a
 * new raster with the same channel layout, `scale` times larger. Gray input is fed as R=G=B and the output's
 * BT.601 luma is kept; the alpha channel, if any, is left for the caller to fill (it never enters the network).
 * With `net.selfEnsemble` every tile runs once per transform listed (inference/dihedral.ts) and the outputs are averaged in
 * float32, in a fixed order, before rounding: deterministic, and as exact under tiling as one pass (each pass's
 * receptive field is the same square). `checkpoint` runs before every network call: it throws to cancel the job
 * between tiles (or between the passes of one tile). With `net.tailRadius` each tile's features are cropped, before
 * the network's upsampling tail, to the core plus the tail's own halo (or the image border): the network's output
 * is then the core plus that margin, and the core's pixels are exactly those of a full-frame run. `onTile` hears
 * how many tiles are done, of how many, after each one.
 */
export async function runTiles(
  session: InferenceSession,
  Tensor: TensorCtor,
  img: RawImage,
  net: NetworkSpec,
  checkpoint: () => void,
  onTile?: (done: number, total: number) => void,
): Promise<{ out: RawImage; tiles: number }> {
  const { width: W, height: H, channels: C, data } = img;
  const s = net.scale;
  const OW = W * s;
  const OH = H * s;
  const outBuf = Buffer.allocUnsafe(OW * OH * C);
  // Clamped writes round half to even and saturate at 0 and 255: one well-defined float -> byte rule.
  const out = new Uint8ClampedArray(outBuf.buffer, outBuf.byteOffset, outBuf.byteLength);
  const gray = C <= 2;
  const tiles = planTiles(W, H, net.tile, net.receptiveRadius);
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  const tail = net.tailRadius;
  if (tail !== undefined && net.selfEnsemble) throw new Error(`${net.id}: a cropped network cannot be self-ensembled`);
  let crop = [0, 0, 0, 0];
  const once = async (planar: Float32Array, h: number, w: number): Promise<Float32Array> => {
    checkpoint();
    const feeds: Record<string, OrtTensor> = { [inputName]: new Tensor('float32', planar, [1, 3, h, w]) };
    if (tail !== undefined) feeds.crop = new Tensor('int64', BigInt64Array.from(crop.map(BigInt)), [4]);
    const result = await session.run(feeds);
    return result[outputName].data as Float32Array;
  };
  const transforms = net.selfEnsemble;
  const infer = transforms ? (planar: Float32Array, h: number, w: number) => selfEnsemble(once, planar, h, w, s, transforms) : once;
  let done = 0;
  for (const t of tiles) {
    // Halo beyond the core on each side, less the tail's own halo: what the network may drop before upsampling.
    const halo = [t.y - t.inY, t.x - t.inX, t.inY + t.inHeight - t.y - t.height, t.inX + t.inWidth - t.x - t.width];
    if (tail !== undefined) crop = halo.map((h) => Math.max(0, h - tail));
    const [cropTop, cropLeft, cropBottom, cropRight] = crop;
    const n = t.inWidth * t.inHeight;
    const planar = new Float32Array(3 * n);
    for (let y = 0; y < t.inHeight; y++) {
      let src = ((t.inY + y) * W + t.inX) * C;
      let dst = y * t.inWidth;
      for (let x = 0; x < t.inWidth; x++, src += C, dst++) {
        if (gray) {
          planar[dst] = planar[n + dst] = planar[2 * n + dst] = data[src];
        } else {
          planar[dst] = data[src];
          planar[n + dst] = data[src + 1];
          planar[2 * n + dst] = data[src + 2];
        }
      }
    }
    const o = await infer(planar, t.inHeight, t.inWidth);
    const ow = (t.inWidth - cropLeft - cropRight) * s;
    const on = ow * (t.inHeight - cropTop - cropBottom) * s;
    if (o.length !== 3 * on) throw new Error(`${net.id}: the network returned ${o.length} values, expected ${3 * on}`);
    const offY = (t.y - t.inY - cropTop) * s;
    const offX = (t.x - t.inX - cropLeft) * s;
    for (let y = 0; y < t.height * s; y++) {
      let src = (offY + y) * ow + offX;
      let dst = ((t.y * s + y) * OW + t.x * s) * C;
      for (let x = 0; x < t.width * s; x++, src++, dst += C) {
        if (gray) out[dst] = 0.299 * o[src] + 0.587 * o[on + src] + 0.114 * o[2 * on + src];
        else {
          out[dst] = o[src];
          out[dst + 1] = o[on + src];
          out[dst + 2] = o[2 * on + src];
        }
      }
    }
    onTile?.(++done, tiles.length);
  }
  return { out: { data: outBuf, width: OW, height: OH, channels: C }, tiles: tiles.length };
}
