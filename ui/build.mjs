// Bundle the operator app into ui/dist/: index.html, app.js, app.css (and favicon.svg).
// `node ui/build.mjs` builds once (minified); `node ui/build.mjs --watch` rebuilds on change.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, 'dist');
const watch = process.argv.includes('--watch');

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

/** @type {import('esbuild').BuildOptions} */
const options = {
  entryPoints: [path.join(here, 'src', 'main.tsx')],
  outfile: path.join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: !watch,
  sourcemap: watch ? 'inline' : false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': watch ? '"development"' : '"production"' },
  legalComments: 'eof',
  logLevel: 'warning',
  plugins: [copyStatic],
};

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log('[ui] watching ui/src for changes');
} else {
  await esbuild.build(options);
}
