// Converts the UpscalerJS TF.js networks to ONNX under models/ (or UPSCALE_MODELS_DIR), cached by content hash.
// Not part of the install (scripts/postinstall.js): no quality tier runs these networks. Run it directly,
// `node scripts/convert-models.js [--force]`, or let what needs them call it: jest's integration and e2e projects
// (globalSetup in jest.config.js: the tiling and conversion tests, the slow-job registry of libs/testing
// registry.ts) and bench/engine/run.js. The converter reads the networks from the @upscalerjs/esrgan-* packages,
// which are development dependencies. See docs/engine.md.
'use strict';
const { convertAll } = require('./convert/convert-all');

/** Converts what is missing or stale; says nothing when everything is up to date (the usual case). */
function ensureConverted() {
  const messages = [];
  const { converted } = convertAll({ modelsDir: process.env.UPSCALE_MODELS_DIR || undefined, log: (m) => messages.push(m) });
  if (converted.length > 0) console.log(`\n[convert-models] ${messages.join('\n[convert-models] ')}`);
}

// jest's globalSetup runs in the parent process before any worker, so no two workers convert the same file at once.
// Real-ESRGAN (the `sharp` tier) is made by the postinstall; converting it here too covers a models/ folder
// made before it existed, and makes animevideov3, which no tier runs (the install skips it), for the tests that
// check its conversion and tiling (cached by content hash: a second run only hashes).
module.exports = async () => {
  ensureConverted();
  await ensureRealesrgan();
};
module.exports.ensureConverted = ensureConverted;

async function ensureRealesrgan() {
  const { convertRealesrgan } = require('./convert-ncnn/convert-realesrgan');
  const messages = [];
  const { converted } = await convertRealesrgan({ modelsDir: process.env.UPSCALE_MODELS_DIR || undefined, log: (m) => messages.push(m) });
  if (converted.length > 0) console.log(`\n[convert-realesrgan] ${messages.join('\n[convert-realesrgan] ')}`);
}

if (require.main === module) {
  convertAll({ force: process.argv.includes('--force'), modelsDir: process.env.UPSCALE_MODELS_DIR || undefined });
}
