/**
 * `npm test`'s first step (`pretest`): `npm run build` when dist/ is older than a source
 * (see dist.ts), nothing otherwise, so the tests' child processes run the built program.
 */
import { spawnSync } from 'node:child_process';
import { REPO, staleSource } from '../../testkit/dist.js';

const stale = staleSource();
if (stale !== undefined) {
  process.stderr.write(`dist/ is older than ${stale}: npm run build\n`);
  const npm = process.env.npm_execpath;
  const build = npm === undefined ? spawnSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'inherit' }) : spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: REPO, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
