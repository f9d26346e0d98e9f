// Runs after `npm ci` / `npm install`: converts the UpscalerJS TensorFlow.js networks to ONNX (once; cached
// by content hash under models/). Kept dependency-free so that it can run before anything is built.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const converter = join(__dirname, 'convert-models.js');
if (existsSync(converter)) require(converter);
