// Runs after `npm ci` / `npm install`: converts the UpscalerJS TensorFlow.js networks to ONNX (once; cached
// by content hash under models/), then copies our own trained networks (training/exports/*.onnx, committed)
// beside them, so that models/ holds every network of the engine's registry. Dependency-free: it runs before
// anything is built.
const { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const converter = join(__dirname, 'convert-models.js');
if (existsSync(converter)) require(converter);

const exportsDir = join(root, 'training', 'exports');
const modelsDir = process.env.UPSCALE_MODELS_DIR || join(root, 'models');
if (existsSync(exportsDir)) {
  mkdirSync(modelsDir, { recursive: true });
  let copied = 0;
  for (const name of readdirSync(exportsDir).filter((n) => /^ours-.*\.onnx$/.test(n))) {
    const from = join(exportsDir, name);
    const to = join(modelsDir, name);
    if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) continue;
    copyFileSync(from, to);
    copied++;
  }
  console.log(`[postinstall] trained networks: ${copied} copied into ${modelsDir}`);
}
