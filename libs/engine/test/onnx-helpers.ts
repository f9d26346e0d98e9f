import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { defaultModelsDir } from '../src/registry/load-registry';

export const MODELS_DIR = defaultModelsDir();

// onnxruntime-node hands back typed arrays of Node's main realm, which jest's sandboxed `Float32Array` does not
// recognise ("A float32 tensor's data must be type of Float32Array"): tests therefore run ONNX Runtime in a
// worker thread, as the engine itself does.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ort);
let session;
parentPort.on('message', async ({ planar, dims }) => {
  try {
    session ??= await ort.InferenceSession.create(workerData.path, { intraOpNumThreads: 2, graphOptimizationLevel: 'all' });
    const feeds = { input: new ort.Tensor('float32', planar, dims) };
    // A network with a crop input (scripts/convert-ncnn: Real-ESRGAN) runs uncropped: the full frame.
    if (session.inputNames.includes('crop')) feeds.crop = new ort.Tensor('int64', new BigInt64Array(4), [4]);
    const out = await session.run(feeds);
    parentPort.postMessage({ data: out.output.data, dims: out.output.dims });
  } catch (e) { parentPort.postMessage({ error: String(e) }); }
});`;

export interface OnnxNetwork {
  /** HWC RGB 0-255 in, HWC RGB floats out. */
  run(rgb: Float32Array, height: number, width: number, scale: number): Promise<Float32Array>;
  release(): Promise<void>;
}

export async function openSession(id: string): Promise<OnnxNetwork> {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { ort: require.resolve('onnxruntime-node'), path: join(MODELS_DIR, `${id}.onnx`) },
  });
  const call = (planar: Float32Array, dims: number[]) =>
    new Promise<{ data: Float32Array; dims: number[] }>((resolve, reject) => {
      worker.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
      worker.postMessage({ planar, dims });
    });
  return {
    async run(rgb, height, width, scale) {
      const n = height * width;
      const planar = new Float32Array(3 * n);
      for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) planar[c * n + i] = rgb[i * 3 + c];
      const { data, dims } = await call(planar, [1, 3, height, width]);
      expectDims(dims, [1, 3, height * scale, width * scale]);
      const m = n * scale * scale;
      const hwc = new Float32Array(3 * m);
      for (let i = 0; i < m; i++) for (let c = 0; c < 3; c++) hwc[i * 3 + c] = data[c * m + i];
      return hwc;
    },
    release: async () => void (await worker.terminate()),
  };
}

function expectDims(got: number[], want: number[]): void {
  if (got.join('x') !== want.join('x')) throw new Error(`output dims ${got.join('x')}, expected ${want.join('x')}`);
}

/** Deterministic pseudo-random test pixels (an LCG), so failures reproduce. */
export function noiseImage(height: number, width: number, seed = 1): Float32Array {
  const rgb = new Float32Array(height * width * 3);
  let s = seed;
  for (let i = 0; i < rgb.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    rgb[i] = s % 256;
  }
  return rgb;
}
