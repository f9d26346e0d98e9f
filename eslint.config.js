// ESLint flat config: typescript-eslint's recommended rules for every TypeScript file, plus the type-aware rules
// that catch what the compiler does not: a promise nobody awaits or handles, a promise passed where a callback's
// result is ignored, and a switch over a union that misses a member.
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'models/**',
      'data/**',
      'training/**',
      'charts/**',
      'k8s/**',
      'clients/typescript/dist/**',
      'clients/typescript/src/generated/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Tests and the e2e client read JSON answers whose shape the test itself asserts.
      '@typescript-eslint/no-explicit-any': 'off',
      // Nest modules are classes with decorators only.
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
);
