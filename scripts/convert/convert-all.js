// Converts every UpscalerJS network x scale we serve into models/<id>.onnx, once: each output is keyed by
// the SHA-256 of its sources (model.json, weight shards, converter code), recorded in models/manifest.json,
// and skipped when the key and the file's own hash still match. No network access, no TensorFlow.
'use strict';
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { readLayersModel } = require('./tfjs-layers-model');
const { convertLayers } = require('./layers-to-graph');
const { encodeModel } = require('./onnx-writer');
const { fuseUpsampleConv } = require('./fuse-upsample-conv');

const NETWORKS = ['slim', 'medium', 'thick'];
const SCALES = [2, 3, 4];

function sha256(...buffers) {
  const h = createHash('sha256');
  for (const b of buffers) h.update(b);
  return h.digest('hex');
}

function converterHash() {
  const files = readdirSync(__dirname)
    .sort()
    .filter((f) => /\.(js|proto)$/.test(f));
  return sha256(...files.map((f) => `${f}\0`).map(Buffer.from), ...files.map((f) => readFileSync(join(__dirname, f))));
}

/** The package's folder: its "exports" hide package.json from require.resolve, so walk up from its entry. */
function packageDir(pkg) {
  let dir = dirname(require.resolve(pkg));
  while (!existsSync(join(dir, 'package.json')) || JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== pkg) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of ${pkg}`);
    dir = up;
  }
  return dir;
}

/** Where the package keeps the network and on which value range it was trained. */
function source(network, scale) {
  const pkg = `@upscalerjs/esrgan-${network}`;
  const definition = require(`${pkg}/${scale}x`);
  const pkgDir = packageDir(pkg);
  return {
    id: `esrgan-${network}-x${scale}`,
    pkg,
    version: JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version,
    modelJson: join(pkgDir, 'models', `x${scale}`, 'model.json'),
    inputMax: definition.inputRange[1],
    outputMax: definition.outputRange[1],
    architecture: definition.meta.architecture,
  };
}

function sourceHash(src, codeHash) {
  const modelJson = readFileSync(src.modelJson);
  const manifest = JSON.parse(modelJson.toString('utf8')).weightsManifest;
  const shards = manifest.flatMap((g) => g.paths).map((p) => readFileSync(join(dirname(src.modelJson), p)));
  return sha256(codeHash, `${src.inputMax}/${src.outputMax}`, modelJson, ...shards);
}

function convertOne(src) {
  const model = readLayersModel(src.modelJson);
  const graph = convertLayers(model, { inputScale: src.inputMax / 255, outputScale: 255 / src.outputMax });
  fuseUpsampleConv(graph);
  const bytes = encodeModel(graph, {
    name: src.id,
    docString: `${src.pkg}@${src.version} x${graph.scale}, converted from TF.js layers; input and output on the 0-255 scale, NCHW RGB.`,
    metadata: { scale: graph.scale, receptive_radius: graph.receptiveRadius, source: `${src.pkg}@${src.version}` },
  });
  return { bytes, scale: graph.scale, receptiveRadius: graph.receptiveRadius };
}

/**
 * @param {{ modelsDir?: string, force?: boolean, log?: (msg: string) => void, only?: string[] }} [opts]
 * @returns {{ converted: string[], cached: string[], manifest: object }}
 */
function convertAll(opts = {}) {
  const modelsDir = opts.modelsDir ?? join(__dirname, '..', '..', 'models');
  const log = opts.log ?? ((m) => console.log(`[convert-models] ${m}`));
  mkdirSync(modelsDir, { recursive: true });
  const manifestPath = join(modelsDir, 'manifest.json');
  const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : { models: {} };
  const codeHash = converterHash();
  const converted = [];
  const cached = [];
  for (const network of NETWORKS) {
    for (const scale of SCALES) {
      const src = source(network, scale);
      if (opts.only && !opts.only.includes(src.id)) continue;
      const key = sourceHash(src, codeHash);
      const file = `${src.id}.onnx`;
      const path = join(modelsDir, file);
      const entry = manifest.models[src.id];
      if (!opts.force && entry && entry.sourceHash === key && existsSync(path) && sha256(readFileSync(path)) === entry.sha256) {
        cached.push(src.id);
        continue;
      }
      const started = Date.now();
      const { bytes, receptiveRadius } = convertOne(src);
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, path);
      manifest.models[src.id] = {
        file,
        scale,
        receptiveRadius,
        source: `${src.pkg}@${src.version}`,
        architecture: src.architecture,
        trainedRange: [0, src.inputMax],
        sourceHash: key,
        sha256: sha256(bytes),
        bytes: bytes.length,
      };
      converted.push(src.id);
      log(`${file}: ${(bytes.length / 1e6).toFixed(1)} MB, receptive radius ${receptiveRadius} px, ${Date.now() - started} ms`);
    }
  }
  const tmp = `${manifestPath}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, manifestPath);
  log(`${converted.length} converted, ${cached.length} up to date (${modelsDir})`);
  return { converted, cached, manifest };
}

module.exports = { convertAll, NETWORKS, SCALES, source, convertOne };
