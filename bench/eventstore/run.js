// Runs the ledger-history bench from TypeScript source: `node bench/eventstore/run.js [--jobs N]` (bench/register.js).
'use strict';
require('../register');
require('./ledger-history.ts');
