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
import { PARSER, buildOptions } from './build-options.mjs';

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

const { common, app: appOptions } = buildOptions({ watch });
/** @type {import('esbuild').BuildOptions} */
const app = { ...appOptions, outfile: path.join(out, 'app.js'), plugins: [...appOptions.plugins, copyStatic] };

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
