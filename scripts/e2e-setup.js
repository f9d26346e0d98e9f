// jest's globalSetup for the end-to-end project. Its tests start the built services (dist/), so a source edited
// since the last build would otherwise be tested as it was: the build is brought up to date first (only when an
// input is newer than dist/.build-stamp; scripts/build-if-stale.js), then the converted networks (convert-models.js).
'use strict';
const { ensureBuilt } = require('./build-if-stale');
const convertModels = require('./convert-models');

module.exports = async () => {
  ensureBuilt();
  await convertModels();
};
