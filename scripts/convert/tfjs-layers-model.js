// Reads a TensorFlow.js "layers-model" (model.json + weight shards) into plain data: the Keras layer list
// and every weight as a Float32Array keyed by its name ("F_0/kernel"). No TensorFlow needed.
'use strict';
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

function readLayersModel(modelJsonPath) {
  const modelJson = JSON.parse(readFileSync(modelJsonPath, 'utf8'));
  if (modelJson.format !== 'layers-model') throw new Error(`${modelJsonPath}: not a TF.js layers-model`);
  const config = modelJson.modelTopology.model_config.config;
  const weights = new Map();
  for (const group of modelJson.weightsManifest) {
    const bytes = Buffer.concat(group.paths.map((p) => readFileSync(join(dirname(modelJsonPath), p))));
    let offset = 0;
    for (const w of group.weights) {
      if (w.dtype !== 'float32' || w.quantization) throw new Error(`${w.name}: only unquantized float32 weights are supported`);
      const count = w.shape.reduce((a, b) => a * b, 1);
      // Copy out so that every array is 4-byte aligned whatever its offset in the shard.
      const data = new Float32Array(count);
      Buffer.from(data.buffer).set(bytes.subarray(offset, offset + count * 4));
      weights.set(w.name, { shape: w.shape, data });
      offset += count * 4;
    }
    if (offset !== bytes.length) throw new Error(`${modelJsonPath}: ${bytes.length - offset} unread weight bytes`);
  }
  return {
    layers: config.layers,
    inputs: config.input_layers.map((l) => l[0]),
    outputs: config.output_layers.map((l) => l[0]),
    weights,
  };
}

module.exports = { readLayersModel };
