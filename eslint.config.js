// ESLint flat config: typescript-eslint's recommended rules for every TypeScript file.
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'models/**', 'data/**', 'training/**', 'charts/**', 'k8s/**', 'clients/typescript/dist/**', 'clients/typescript/src/generated/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Tests and the e2e client read JSON answers whose shape the test itself asserts.
      '@typescript-eslint/no-explicit-any': 'off',
      // Nest modules are classes with decorators only.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
);
