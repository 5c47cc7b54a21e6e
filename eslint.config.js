// Lint: type-aware rules that catch lost promises, and no import cycles.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'ui/dist/**', 'test/fixtures/**', 'docs/examples/**', 'eslint.config.js'] },
  {
    files: ['**/*.ts', 'ui/**/*.tsx'],
    extends: [tseslint.configs.base, importX.flatConfigs.typescript],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['./tsconfig.json', './ui/tsconfig.json'], noWarnOnMultipleProjects: true })] },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', {
        // node:test registers tests synchronously; their returned promises are the runner's.
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }],
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // The dependency direction of ARCHITECTURE.md: core ← actors ← engine ← bin; steps ← engine; engine ← lib (the library's face);
      // contract/ (types only) below them all, and the one thing the ui imports.
      'import-x/no-restricted-paths': ['error', {
        zones: [
          { target: './core', from: ['./actors', './engine', './steps', './agents', './bin', './api', './bundles', './lib'], message: 'core imports nothing of the project' },
          { target: './actors', from: ['./engine', './steps', './agents', './bin', './api', './bundles', './lib'], message: 'actors are pure: they import only core' },
          { target: './steps', from: ['./engine', './actors', './bin', './api', './bundles', './lib'], message: 'steps never reach into the engine' },
          { target: './agents', from: ['./engine', './actors', './steps', './bin', './api', './bundles', './lib'], message: 'agents import only core' },
          { target: './engine', from: ['./bin', './api', './bundles', './lib'], message: 'the engine is below the CLI, the API and the library' },
          { target: './ui', from: ['./core', './actors', './engine', './steps', './agents', './bin', './api', './bundles', './lib', './bench', './test', './examples'], message: 'the ui talks to the server over HTTP only: it imports only the shapes of contract/ (import type)' },
          { target: './contract', from: ['./core', './actors', './engine', './steps', './agents', './bin', './api', './bundles', './lib', './ui', './bench', './test', './examples'], message: 'contract/ (the shapes the API sends and the app reads) imports nothing of the project' },
          { target: './api', from: ['./bin', './lib'], message: 'the API is below the CLI' },
          { target: './bundles', from: ['./api', './bin', './lib'], message: 'bundles sit between the API and the engine (api → bundles → engine)' },
          { target: './lib', from: ['./bin', './api', './bundles', './steps', './agents', './actors'], message: 'the library (lib/) is a face on the engine: it imports engine/ and core/ only' },
          { target: './bin', from: ['./lib'], message: 'nothing of the project imports the library: it is for other programs' },
          // Inside the engine (ARCHITECTURE.md): base/ (clock, timers, own modules, crash points, the data folder) under everything;
          // store/ under the engine's root and its runs, cluster, setup and commands (it takes only row types from the subsystems whose rows it keeps).
          { target: './engine/base', from: './engine', except: ['./base'], message: 'engine/base imports nothing else of the engine' },
          { target: './engine/store', from: ['./engine/*.ts', ...['runs', 'cluster', 'setup', 'standalone', 'triggers', 'team', 'plugins', 'threads', 'backup', 'config', 'horde'].map((d) => `./engine/${d}/**`)], message: 'the store is below the engine\'s root, its runs, cluster, setup and commands' },
          { target: ['./engine/runs', './engine/cluster', './engine/setup', './engine/standalone'], from: ['./engine/engine.ts', './engine/index.ts'], message: 'the engine\'s wiring (engine.ts, index.ts) is above its parts' },
          // The tests, the benchmarks and what both share (testkit/) stay out of the program; bench/ and testkit/ import nothing of test/.
          { target: ['./core', './actors', './engine', './steps', './agents', './api', './bundles', './lib', './bin', './ui', './contract'], from: ['./test', './testkit', './bench'], message: 'the program imports nothing of the tests, the benchmarks or the fakes they share (testkit/)' },
          { target: './bench', from: ['./test'], message: 'bench/ imports nothing of test/: what both use is in testkit/' },
          { target: './testkit', from: ['./test', './bench'], message: 'testkit/ is shared by test/ and bench/: it imports neither' },
        ],
      }],
      'no-throw-literal': 'error',
      'prefer-const': 'error',
    },
  },
  {
    // The engine reads time only through its injected Clock and Timers (engine/base/clock.ts,
    // engine/base/timers.ts: the real ones live there), so tests can drive it with a
    // simulated clock. The checkpoint worker is its own thread with its own interval.
    files: ['engine/**/*.ts'],
    ignores: ['engine/base/clock.ts', 'engine/base/timers.ts', 'engine/store/checkpoint.worker.ts'],
    rules: {
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'read the injected Clock (deps.clock.now())' },
        { object: 'performance', property: 'now', message: 'read the injected Clock' },
        { object: 'process', property: 'hrtime', message: 'read the injected Clock' },
        { object: 'globalThis', property: 'setTimeout', message: 'use the injected Timers (timers.at(clock.now() + ms, fn))' },
        { object: 'globalThis', property: 'setInterval', message: 'use the injected Timers' }],
      'no-restricted-globals': ['error',
        { name: 'setTimeout', message: 'use the injected Timers (timers.at(clock.now() + ms, fn))' },
        { name: 'setInterval', message: 'use the injected Timers' }],
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'new Date() reads the wall clock: use new Date(clock.now())' },
        { selector: "CallExpression[callee.name='Date']", message: 'Date() reads the wall clock: use new Date(clock.now())' }],
      'no-restricted-imports': ['error', { paths: [
        { name: 'node:timers', importNames: ['setTimeout', 'setInterval'], message: 'use the injected Timers' },
        { name: 'node:timers/promises', importNames: ['setTimeout', 'setInterval', 'scheduler'], message: 'use the injected Timers' },
        { name: 'node:perf_hooks', importNames: ['performance'], message: 'read the injected Clock' },
      ] }],
    },
  },
  {
    // contract/ holds the shapes of the HTTP API and the websocket, which the server and the app
    // both import with `import type`: types only, so it adds nothing to the app's bundle.
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: 'Program > :not(ImportDeclaration[importKind="type"], ExportNamedDeclaration[exportKind="type"], ExportAllDeclaration[exportKind="type"], TSInterfaceDeclaration, TSTypeAliasDeclaration)', message: 'contract/ holds types only: `export interface`, `export type`, `import type`' }],
    },
  },
  {
    // The app imports contract/ for its types only: a value import would pull server code into the bundle.
    files: ['ui/**/*.ts', 'ui/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['**/contract/**', '**/contract'], allowTypeImports: true, message: 'the app imports contract/ with `import type` only' }] }],
    },
  },
  {
    // Actors are pure: no I/O, no clock, no randomness — those come in as inputs.
    files: ['actors/**/*.ts', 'core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'fs', 'path', 'crypto', 'child_process'], message: 'pure modules take I/O as input' }] }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'inject a clock' },
        { object: 'Math', property: 'random', message: 'inject randomness' }],
    },
  },
);
