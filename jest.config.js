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
  // The SDK is the one @upscaler package outside libs/ (its Node entry; the build makes its dist for the CLI).
  moduleNameMapper: {
    '^@upscaler/client$': '<rootDir>/clients/typescript/src/node.ts',
    '^@upscaler/([a-z0-9-]+)$': '<rootDir>/libs/$1/src',
  },
  setupFiles: ['reflect-metadata'],
  // uuid 11+ ships ESM only: let swc transform it too.
  transformIgnorePatterns: ['/node_modules/(?!(uuid)/)'],
};
// Some integration and e2e tests run the converted UpscalerJS networks, which the install no longer makes: converted
// on demand before the project's first test (cached by content hash; scripts/convert-models.js).
const convertedNetworks = { globalSetup: '<rootDir>/scripts/convert-models.js' };
module.exports = {
  // testTimeout is a global option (per-project values are ignored); unit specs finish far below it.
  testTimeout: 180000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/{libs,services}/*/src/**/*.spec.ts',
        '<rootDir>/scripts/**/*.spec.ts',
        '<rootDir>/clients/typescript/src/**/*.spec.ts',
      ],
    },
    { ...common, ...convertedNetworks, displayName: 'integration', testMatch: ['<rootDir>/{libs,services}/*/test/**/*.int-spec.ts'] },
    {
      ...common,
      // end-to-end tests run dist/: the build is brought up to date first (then the converted networks)
      globalSetup: '<rootDir>/scripts/e2e-setup.js',
      displayName: 'e2e',
      testMatch: ['<rootDir>/{libs,services}/*/test/**/*.e2e-spec.ts', '<rootDir>/clients/typescript/test/**/*.e2e-spec.ts'],
    },
  ],
};
