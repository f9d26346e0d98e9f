// Install-time step (required by scripts/postinstall.js, or run directly: `node scripts/convert-models.js
// [--force]`): converts the UpscalerJS TF.js networks to ONNX under models/. See docs/engine.md.
'use strict';
const { convertAll } = require('./convert/convert-all');

convertAll({
  force: process.argv.includes('--force'),
  modelsDir: process.env.UPSCALE_MODELS_DIR || undefined,
});
