import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// Module boundaries by tags: an app imports only contracts, platform and (in tests) testing libs,
// never another app; contracts import nothing but contracts; platform knows no business context.
export const boundaries = {
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:testing'] },
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
    { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:contracts'] },
    { sourceTag: 'type:tests', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:contracts'] },
  ],
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.nx/**', 'coverage/**', '.data/**', '**/vite.config.mts.timestamp*'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['require', '__dirname', 'process', 'console', 'fetch', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'URL', 'performance', 'AbortController', 'AbortSignal', 'Buffer']
          .map((name) => [name, 'readonly'])
          .concat([['module', 'writable']]),
      ),
    },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-console': 'off' },
  },
  {
    // Tests of any project may use the test helpers.
    files: ['**/test/**', '**/*.spec.ts', '**/*.spec.tsx', '**/*.integration-spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          ...boundaries,
          depConstraints: boundaries.depConstraints.map((constraint) => ({
            ...constraint,
            onlyDependOnLibsWithTags: [...new Set([...constraint.onlyDependOnLibsWithTags, 'type:testing'])],
          })),
        },
      ],
    },
  },
  {
    // Build configuration reaches into tools/ by design; it is not application code.
    files: ['**/webpack.config.js', '**/vite.config.mts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['tools/**', 'deploy/**', 'tests/**', '**/*.spec.ts', '**/*.integration-spec.ts', '**/*.e2e-spec.ts'],
    rules: { 'no-console': 'off' },
  },
);
