// The esbuild options of the operator app's bundle: ui/build.mjs builds with them, and
// test/unit/ui.bundle.test.ts bundles with them to list what the app is made of.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The parser's file in ui/dist (served by api/routes/ui.ts). */
export const PARSER = 'xlsx-reader.js';

/** The app's `import('read-excel-file/browser')` loads ./xlsx-reader.js at run time instead of bundling the parser. */
const lazyParser = {
  name: 'lazy-parser',
  setup(build) {
    build.onResolve({ filter: /^read-excel-file\/browser$/ }, (args) => (args.kind === 'dynamic-import' ? { path: `./${PARSER}`, external: true } : undefined));
  },
};

/**
 * `common`: what both entries share; `app`: the app's entry (ui/src/main.tsx), without its outfile.
 * @param {{ watch: boolean }} options
 */
export function buildOptions({ watch }) {
  /** @type {import('esbuild').BuildOptions} */
  const common = {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: !watch,
    sourcemap: watch ? 'inline' : false,
    define: { 'process.env.NODE_ENV': watch ? '"development"' : '"production"' },
    legalComments: 'eof',
    logLevel: 'warning',
  };
  return {
    common,
    app: { ...common, entryPoints: [path.join(here, 'src', 'main.tsx')], jsx: 'automatic', jsxImportSource: 'preact', plugins: [lazyParser] },
  };
}
