/**
 * The app's bundle holds no server code: bundled as ui/build.mjs bundles it, every module it is
 * made of is the app's own (ui/src/) or one of its packages (node_modules/). Its shapes come from
 * contract/, imported with `import type`, which leaves nothing in the bundle.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type BuildOptions = (o: { watch: boolean }) => { app: esbuild.BuildOptions };

test('the app bundle is made of ui/src and its packages only', async () => {
  const { buildOptions } = (await import(pathToFileURL(path.join(root, 'ui', 'build-options.mjs')).href)) as { buildOptions: BuildOptions };
  const result = await esbuild.build({ ...buildOptions({ watch: false }).app, absWorkingDir: root, write: false, metafile: true, outdir: path.join(root, 'ui', 'dist') });
  const inputs = Object.keys(result.metafile.inputs);
  assert.ok(inputs.includes('ui/src/main.tsx'), `the entry is bundled: ${inputs.slice(0, 5).join(', ')}`);
  const foreign = inputs.filter((p) => !p.startsWith('ui/src/') && !p.startsWith('node_modules/'));
  assert.deepEqual(foreign, [], 'modules from outside the app in its bundle');
});
