// Runs the engine's suites with the root projects plus one fix: uuid 14 (pulled in by @upscaler/contracts) ships
// ESM only, which jest's CommonJS runtime cannot load untransformed. Usage: npx jest -c libs/engine/jest.config.js
const root = require('../../jest.config.js');
module.exports = {
  testTimeout: 600000,
  rootDir: '../..',
  projects: root.projects.map((p) => ({
    ...p,
    rootDir: require('node:path').resolve(__dirname, '../..'),
    transformIgnorePatterns: ['/node_modules/(?!(uuid)/)'],
    testMatch: p.testMatch
      .filter((m) => m.includes('{libs,modules,services}'))
      .map((m) => m.replace('{libs,modules,services}/*', 'libs/engine')),
  })),
};
