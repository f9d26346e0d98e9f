// Three tiers (STYLE.md): unit specs beside the code, integration and end-to-end suites under test/.
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
  moduleNameMapper: { '^@upscaler/([a-z0-9-]+)$': '<rootDir>/libs/$1/src' },
  setupFiles: ['reflect-metadata'],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{libs,services}/*/src/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/{libs,services}/*/test/**/*.int-spec.ts'], testTimeout: 120000 },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/{libs,services}/*/test/**/*.e2e-spec.ts'], testTimeout: 300000 },
  ],
};
