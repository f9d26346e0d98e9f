// Entry of the inference worker thread: owns one ONNX Runtime session per network (intra-op threads = the
// machine's cores) and runs whole jobs (decode, tiles, alpha, encode) so that the main event loop only passes
// messages. Jobs run one at a time: each already uses every core.
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { CorruptImageError, decodeImage, PixelLimitError } from '../image/decode-image';
import { encodeImage } from '../image/encode-image';
import { resizeColour } from '../image/resize-colour';
import { resizeToSize } from '../image/resize-to-size';
import { upscaleAlphaInto } from '../image/upscale-alpha';
import { fillTransparentColour, flattenOnWhite } from '../image/transparent-colour';
import { runTiles, type NetworkSpec, type TensorCtor } from './tile-runner';
import type { JobMessage, ReplyMessage, WorkerInit } from './worker-protocol';

const init = workerData as WorkerInit;
const sessions = new Map<string, Promise<ort.InferenceSession>>();

class Cancelled extends Error {}

function session(net: NetworkSpec): Promise<ort.InferenceSession> {
  let s = sessions.get(net.path);
  if (!s) {
    s = ort.InferenceSession.create(net.path, {
      intraOpNumThreads: init.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    s.catch(() => sessions.delete(net.path));
    sessions.set(net.path, s);
  }
  return s;
}

async function runJob(job: JobMessage): Promise<ReplyMessage> {
  const flag = new Int32Array(job.cancel);
  const checkpoint = () => {
    if (Atomics.load(flag, 0) !== 0) throw new Cancelled();
  };
  const started = performance.now();
  try {
    checkpoint();
    const input = Buffer.from(job.input.buffer, job.input.byteOffset, job.input.byteLength);
    // Alpha kept for every format: a JPEG is flattened onto white after the upscale (flattening first would give the
    // network a hard edge against white to ring on), and the colour under transparency is filled in from the visible
    // pixels so that no dark outline comes through the edge (transparent-colour.ts).
    const img = await decodeImage(input, { maxInputPixels: job.maxInputPixels, flatten: false });
    fillTransparentColour(img);
    checkpoint();
    const net = job.network;
    const onTile = (done: number, total: number) =>
      parentPort!.postMessage({ type: 'progress', id: job.id, done, total } satisfies ReplyMessage);
    const tiled = await runTiles(await session(net), ort.Tensor as unknown as TensorCtor, img, net, checkpoint, onTile);
    checkpoint();
    // An x4 network serving x2 / x3 (registry `outscale`): its output resized down with Lanczos-3.
    const outscale = net.outscale ?? net.scale;
    const out = outscale === net.scale ? tiled.out : await resizeColour(tiled.out, img.width * outscale, img.height * outscale);
    const tiles = tiled.tiles;
    await upscaleAlphaInto(img, out);
    // Output by pixel size: the target reached the size, so this scales down (Lanczos-3), alpha included.
    const sized = job.size ? await resizeToSize(out, job.size) : out;
    const output = await encodeImage(job.format === 'jpeg' ? flattenOnWhite(sized) : sized, job.format);
    return {
      type: 'done',
      id: job.id,
      output,
      width: sized.width,
      height: sized.height,
      tiles,
      engineMs: Math.round(performance.now() - started),
    };
  } catch (e) {
    if (e instanceof Cancelled) return { type: 'cancelled', id: job.id };
    const message = (e as Error)?.message ?? String(e);
    if (e instanceof CorruptImageError) return { type: 'failed', id: job.id, code: 'corrupt_image', message };
    if (e instanceof PixelLimitError) return { type: 'failed', id: job.id, code: 'image_dimensions_too_large', message };
    return { type: 'failed', id: job.id, code: 'engine_error', message };
  }
}

let queue: Promise<unknown> = Promise.resolve();
parentPort!.on('message', (msg: JobMessage | { type: 'close' }) => {
  if (msg.type === 'close') {
    void queue.then(async () => {
      for (const s of sessions.values()) await (await s.catch(() => undefined))?.release();
      process.exit(0);
    });
    return;
  }
  queue = queue.then(async () => {
    const reply = await runJob(msg);
    if (reply.type === 'done') {
      // Hand the encoded bytes over without a copy when the buffer owns its memory.
      const buf = reply.output;
      const own = buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength && !(buf.buffer instanceof SharedArrayBuffer);
      try {
        parentPort!.postMessage(reply, own ? [buf.buffer as ArrayBuffer] : []);
      } catch {
        parentPort!.postMessage({ ...reply, output: Uint8Array.from(buf) });
      }
    } else {
      parentPort!.postMessage(reply);
    }
  });
});
