import { readdirSync } from 'node:fs';

import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// Module boundaries by tags: an app imports only contracts, platform and (in tests) testing libs,
// never another app; the web app imports contracts only; contracts import nothing but contracts; platform knows no business context.
export const boundaries = {
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:platform', 'type:testing'] },
    // The web app runs in browsers: it shares the contracts' types and schemas, never the services' platform
    // (NATS, PostgreSQL, Redis) nor their test infrastructure.
    { sourceTag: 'scope:web', onlyDependOnLibsWithTags: ['type:contracts'] },
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
    { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts'] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:contracts'] },
    { sourceTag: 'type:tests', onlyDependOnLibsWithTags: ['type:testing', 'type:platform', 'type:contracts'] },
  ],
};

// The web app's layers (apps/web/README.md), checked rather than hoped for: shared code (components/, lib/) serves
// every feature, so it may not depend on one (that would tie the features together through it and pull a feature's
// code into every page's chunk); a feature may use another only through that feature's index.ts, so its files can
// move and change inside without the others noticing.
const webFeatures = readdirSync(new URL('./apps/web/src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const webLayers = [
  {
    files: ['apps/web/src/components/**', 'apps/web/src/lib/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/features', '**/features/**'], message: 'components/ and lib/ are shared: they may not import features/.' }] }],
    },
  },
  ...webFeatures.map((feature) => {
    const others = webFeatures.filter((other) => other !== feature).join('|');
    return {
      files: [`apps/web/src/features/${feature}/**`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                // '../items' (its index.ts) passes; '../items/api' or '../../items/components/x' does not.
                regex: `^(\\.\\./)+(features/)?(${others})/.`,
                message: `A feature imports another only through its index.ts ('../<feature>'), not its files.`,
              },
            ],
          },
        ],
      },
    };
  }),
];

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
    // One way to reach PostgreSQL: only repositories and database files (the platform's Database, data sources,
    // migrations) import TypeORM; services, controllers and consumers get `Database` and `Transaction` from
    // @homing/platform, so SQL cannot creep back into them. apps/web is left to its own block.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['apps/web/**', '**/*.repository.ts', '**/database/**', '**/migrations/**', '**/*data-source*.ts', '**/test/**', '**/*.spec.ts', '**/*.integration-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'typeorm', message: 'Only repositories and database files import TypeORM: use Database and Transaction from @homing/platform.' }],
          patterns: [{ group: ['typeorm/*'], message: 'Only repositories and database files import TypeORM: use Database and Transaction from @homing/platform.' }],
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
  ...webLayers,
);
