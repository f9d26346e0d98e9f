// Runs the reserve-history bench from TypeScript source: `node bench/eventstore/run.js [--history 10,100000] [--samples 200]` (bench/register.js).
'use strict';
require('../register');
require('./reserve-history.ts');
