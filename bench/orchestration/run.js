// Runs the orchestration bench from source: `node bench/orchestration/run.js [options]` (see orchestration.ts).
// From source because libs/testing, which starts the deployments, is not part of `npm run build`.
'use strict';
const path = require('node:path');
require('../register');
require(path.join(__dirname, 'orchestration.ts'));
