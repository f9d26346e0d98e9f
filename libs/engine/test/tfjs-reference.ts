// The independent reference for the conversion test and the speed benchmark: the same UpscalerJS weights run by
// TensorFlow.js (layers API, wasm backend), with UpscalerJS's own custom layers (MultiplyBeta, PixelShuffle).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import * as tfl from '@tensorflow/tfjs-layers';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

let ready: Promise<void> | undefined;
export function useWasmBackend(): Promise<void> {
  ready ??= (async () => {
    setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return ready;
}

function packageDir(pkg: string): string {
  let dir = dirname(require.resolve(pkg));
  while (!(existsSync(join(dir, 'package.json')) && readFileSync(join(dir, 'package.json'), 'utf8').includes(`"name": "${pkg}"`)))
    dir = dirname(dir);
  return dir;
}

export interface TfjsNetwork {
  /** RGB, HWC, 0-255 in; RGB, HWC, 0-255 out (unclamped). */
  predict(rgb: Float32Array, height: number, width: number): Promise<Float32Array>;
  dispose(): void;
}

export async function loadTfjsNetwork(network: 'slim' | 'medium' | 'thick', scale: number): Promise<TfjsNetwork> {
  await useWasmBackend();
  const pkg = `@upscalerjs/esrgan-${network}`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const def = require(`${pkg}/${scale}x`);
  def.setup?.({ ...tf, layers: tfl.layers, serialization: tf.serialization });
  const dir = join(packageDir(pkg), 'models', `x${scale}`);
  const modelJson = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
  const weights = Buffer.concat(
    modelJson.weightsManifest.flatMap((g: { paths: string[] }) => g.paths.map((p) => readFileSync(join(dir, p)))),
  );
  const model = await tfl.loadLayersModel({
    load: async () => ({
      modelTopology: modelJson.modelTopology,
      format: modelJson.format,
      weightSpecs: modelJson.weightsManifest.flatMap((g: { weights: unknown[] }) => g.weights),
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    }),
  });
  const inMax: number = def.inputRange[1];
  const outMax: number = def.outputRange[1];
  return {
    async predict(rgb, height, width) {
      const y = tf.tidy(() => {
        const x = tf.mul(tf.tensor4d(rgb, [1, height, width, 3]), inMax / 255);
        return tf.mul(model.predict(x) as tf.Tensor, 255 / outMax);
      });
      const data = (await y.data()) as Float32Array;
      y.dispose();
      return data;
    },
    dispose: () => model.dispose(),
  };
}
