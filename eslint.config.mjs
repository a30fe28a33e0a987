import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { moduleBoundaries } from './module-boundaries.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'data/',
      'uploads/',
      'bench/results/',
      'test/contract/.generated/',
      'packages/*/dist/',
      'packages/sdk/src/schema.ts',
      'packages/storefront/.next/',
      'packages/storefront/next-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        module: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...moduleBoundaries(),
  {
    // The SDK runs in browsers as well as Node: nothing of the service, nothing of Node's own.
    files: ['packages/sdk/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*'],
              message: 'The SDK cannot import the service: copy the type and test that they agree.',
            },
            { group: ['node:*'], message: 'The SDK runs in browsers: no Node built-ins.' },
          ],
        },
      ],
    },
  },
);
