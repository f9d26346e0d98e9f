// jest's globalSetup for the end-to-end project. Its tests start the built services (dist/), so a source edited
// since the last build would otherwise be tested as it was: the build is brought up to date first (only when an
// input is newer than dist/.build-stamp; scripts/build-if-stale.js), then the converted networks (convert-models.js).
'use strict';
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { isStale } = require('./build-if-stale');
const convertModels = require('./convert-models');

module.exports = async () => {
  if (isStale()) {
    console.log('\n[e2e-setup] a source is newer than the build (dist/.build-stamp): npm run build');
    execFileSync('npm', ['run', '-s', 'build'], { cwd: path.resolve(__dirname, '..'), stdio: 'inherit' });
  }
  await convertModels();
};
