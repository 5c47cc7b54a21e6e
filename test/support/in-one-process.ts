/**
 * Runs the test files under the folders given, all in this one process (`npm run
 * test:unit`): node --test starts a process per file, and for small pure tests the
 * start-up (tsx compiling the same sources again) costs more than the tests. Only for
 * tests that share a process well: no process-wide state left behind, no exit hooks
 * counted on. Usage: node --import tsx --test-reporter=spec test/support/in-one-process.ts <folder>...
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { testFiles } from './test-groups.js';

const folders = process.argv.slice(2);
if (folders.length === 0) {
  process.stderr.write('usage: in-one-process.ts <folder>... (the folders whose *.test.ts files to run)\n');
  process.exit(2);
}
for (const file of folders.flatMap((folder) => testFiles(path.resolve(folder)))) await import(pathToFileURL(file).href);
