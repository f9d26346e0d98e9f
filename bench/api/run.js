// Runs the API hot-path bench from TypeScript source: `node bench/api/run.js [options]` (see hot-path.ts; bench/register.js).
// The service it measures is the built one (`npm run build` first), started as the end-to-end suites start it.
'use strict';
require('../register');
require('./hot-path.ts');
