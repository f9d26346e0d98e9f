// Three tiers (contributing/STYLE.md): unit specs beside the code, integration and end-to-end suites under test/.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': swc },
  // @upscaler/<name> is a lib (libs/<name>) or a capability module (modules/<name>); the SDK is the one package
  // elsewhere (its Node entry; the build makes its dist for the CLI).
  moduleNameMapper: {
    '^@upscaler/client$': '<rootDir>/clients/typescript/src/node.ts',
    '^@upscaler/([a-z0-9-]+)$': ['<rootDir>/libs/$1/src', '<rootDir>/modules/$1/src'],
  },
  setupFiles: ['reflect-metadata'],
  // uuid 11+ ships ESM only: let swc transform it too.
  transformIgnorePatterns: ['/node_modules/(?!(uuid)/)'],
};
// Some integration and e2e tests run the converted UpscalerJS networks, which the install no longer makes: converted
// on demand before the project's first test (cached by content hash; scripts/convert-models.js).
const convertedNetworks = { globalSetup: '<rootDir>/scripts/convert-models.js' };
/**
 * An end-to-end project: its suites start their target (libs/testing startTarget) in this project's mode, which the
 * project names in the global UPSCALE_E2E_MODE (libs/testing/src/e2e-mode.ts): `--selectProjects e2e` is the
 * standalone, `e2e-distributed` and `e2e-cluster` the other two.
 */
const e2e = (mode, extra = {}) => ({
  ...common,
  // end-to-end tests run dist/: the build is brought up to date first (then the converted networks)
  globalSetup: '<rootDir>/scripts/e2e-setup.js',
  displayName: mode === 'standalone' ? 'e2e' : `e2e-${mode}`,
  globals: { UPSCALE_E2E_MODE: mode },
  testMatch: ['<rootDir>/{libs,modules,services}/*/test/**/*.e2e-spec.ts', '<rootDir>/clients/typescript/test/**/*.e2e-spec.ts'],
  ...extra,
});
module.exports = {
  // testTimeout is a global option (per-project values are ignored); unit specs finish far below it.
  testTimeout: 180000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/{libs,modules,services}/*/src/**/*.spec.ts',
        '<rootDir>/scripts/**/*.spec.ts',
        '<rootDir>/clients/typescript/src/**/*.spec.ts',
      ],
    },
    {
      ...common,
      ...convertedNetworks,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,modules,services}/*/test/**/*.int-spec.ts'],
    },
    e2e('standalone'),
    // The same suites against separate processes; files that test the standalone process itself (its data dir, a
    // crash and restart) or start deployments of their own are not repeated.
    e2e('distributed', {
      testPathIgnorePatterns: [
        '/node_modules/',
        '/crash[^/]*\\.e2e-spec\\.ts$',
        '/distributed-[^/]*\\.e2e-spec\\.ts$',
        '/storage-full\\.e2e-spec\\.ts$',
        '/services/standalone/test/',
      ],
    }),
    // The chart's release on the local cluster (npm run test:cluster chooses the suites: scripts/cluster/test.sh).
    e2e('cluster'),
  ],
};
