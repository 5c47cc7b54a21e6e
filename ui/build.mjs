// Bundle the operator app into ui/dist/: index.html, app.js, app.css (and favicon.svg), and
// xlsx-reader.js: the workbook parser, which the app imports only when it shows a workbook.
// `node ui/build.mjs` builds once (minified); `node ui/build.mjs --watch` rebuilds on change.
//
// Why a second entry rather than esbuild's `splitting`: splitting moves esbuild's shared
// helpers into a chunk that app.js then imports statically, so the app itself would depend
// on extra files; here app.js stays one self-contained file and the parser one more.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, 'dist');
const watch = process.argv.includes('--watch');
/** The parser's file in ui/dist (served by api/routes/ui.ts). */
const PARSER = 'xlsx-reader.js';

/** Copies the static files next to the bundle after every build. */
const copyStatic = {
  name: 'copy-static',
  setup(build) {
    build.onEnd(async (result) => {
      if (result.errors.length > 0) return;
      await copyFile(path.join(here, 'index.html'), path.join(out, 'index.html'));
      await copyFile(path.join(here, 'favicon.svg'), path.join(out, 'favicon.svg'));
      if (watch) console.log(`[ui] built ${new Date().toLocaleTimeString()}`);
    });
  },
};

/** The app's `import('read-excel-file/browser')` loads ./xlsx-reader.js at run time instead of bundling the parser. */
const lazyParser = {
  name: 'lazy-parser',
  setup(build) {
    build.onResolve({ filter: /^read-excel-file\/browser$/ }, (args) => (args.kind === 'dynamic-import' ? { path: `./${PARSER}`, external: true } : undefined));
  },
};

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

/** @type {import('esbuild').BuildOptions} */
const app = {
  ...common,
  entryPoints: [path.join(here, 'src', 'main.tsx')],
  outfile: path.join(out, 'app.js'),
  jsx: 'automatic',
  jsxImportSource: 'preact',
  plugins: [lazyParser, copyStatic],
};

/** @type {import('esbuild').BuildOptions} */
const parser = {
  ...common,
  stdin: { contents: "export { default } from 'read-excel-file/browser';", resolveDir: here, sourcefile: PARSER, loader: 'js' },
  outfile: path.join(out, PARSER),
};

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await esbuild.build(parser);
if (watch) {
  const ctx = await esbuild.context(app);
  await ctx.watch();
  console.log('[ui] watching ui/src for changes');
} else {
  await esbuild.build(app);
}
