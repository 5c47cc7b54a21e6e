/**
 * Installing without a checkout, as a person does it: `npm pack` makes the release tarball,
 * `install.sh` checks its SHA-256 and installs it with `npm install -g --prefix`, and the
 * installed `kowalski serve` lists the built-in hordes and serves the app over real HTTP.
 * A user's npm fetches better-sqlite3's prebuilt binary from GitHub; with no internet here it
 * would compile it from source (minutes), so the install is given the checkout's own build as
 * a local prebuild, the way prebuild-install reads one (`npm_config_better_sqlite3_local_prebuilds`).
 * This file is in its own folder, run by `npm test`, not by `test:fast` (docs/testing.md).
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { REPO, outputOf, startCli } from '../../testkit/cli.js';
import type { CliOptions, CliResult, RunningCli } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { staleSource } from '../../testkit/dist.js';
import { tempDir } from '../../testkit/tmp.js';
import { AUTH, writeTestToken } from '../support/token.js';

const INSTALL_SH = path.join(REPO, 'install.sh');
const SERVING = /^kowalski serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/;
/** What npm tells its children about the test run's own `npm test` (its prefix, its scripts): none of it is the user's. */
const NO_NPM_ENV = Object.fromEntries(Object.keys(process.env).filter((k) => /^npm_/i.test(k)).map((k) => [k, undefined]));
/** The install's npm: its cache when it has what is asked (else the registry), and no audit, fund or update notices. */
const INSTALL_ENV: NodeJS.ProcessEnv = { ...NO_NPM_ENV, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

/** Run a program other than the CLI to its end (startCli's output collection and time limit), with KOWALSKI_HOME on a folder never made. */
function run(command: string[], args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(path.join(os.tmpdir(), 'kw-install-no-home'), args, { ...options, command }).exited;
}

interface Packed {
  tarball: string;
  files: string[];
  size: number;
  unpackedSize: number;
}

let packed: Packed;
let packDir: string;

before(async () => {
  // `npm pack` runs `prepare` (the build) unless told not to; the tests' children may run dist/ meanwhile, so build first only when stale.
  const stale = staleSource();
  if (stale !== undefined || !fs.existsSync(path.join(REPO, 'ui', 'dist', 'index.html'))) {
    const build = await run(['npm', 'run', 'build'], [], { env: NO_NPM_ENV, limitMs: 300_000 });
    assert.equal(build.code, 0, outputOf(build));
  }
  packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-pack-'));
  INSTALL_ENV.npm_config_better_sqlite3_local_prebuilds = await localPrebuild(packDir);
  const r = await run(['npm', 'pack', '--json', '--ignore-scripts', '--pack-destination', packDir], [], { env: NO_NPM_ENV, limitMs: 120_000 });
  assert.equal(r.code, 0, outputOf(r));
  const [info] = JSON.parse(r.stdout) as { filename: string; files: { path: string }[]; size: number; unpackedSize: number }[];
  packed = { tarball: path.join(packDir, info!.filename), files: info!.files.map((f) => f.path).sort(), size: info!.size, unpackedSize: info!.unpackedSize };
  assert.ok(fs.statSync(packed.tarball).isFile(), packed.tarball);
});

/**
 * better-sqlite3's binary as its release tarball would hold it, named as prebuild-install looks
 * for it (`better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`), made from the
 * checkout's node_modules (the same version: package.json pins it). The folder holding it.
 */
async function localPrebuild(under: string): Promise<string> {
  const pkg = path.join(REPO, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(under, 'prebuilds');
  fs.mkdirSync(dir);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const r = await run(['tar'], ['-czf', path.join(dir, name), '-C', pkg, 'build/Release/better_sqlite3.node'], { env: NO_NPM_ENV });
  assert.equal(r.code, 0, outputOf(r));
  return dir;
}

after(() => {
  if (packDir !== undefined) fs.rmSync(packDir, { recursive: true, force: true });
});

test('the tarball holds what runs (bin, dist/ without bench, testkit and maps, the plugin host, hordes, team, the built app, install.sh) and nothing of the tests', (t) => {
  const { files } = packed;
  t.diagnostic(`${path.basename(packed.tarball)}: ${files.length} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked`);
  const unwanted = files.filter((f) => /(^|\/)(test|tests|bench|testkit|fixtures|golden)\//.test(f) || f.endsWith('.map') || f.endsWith('.ts') && !f.endsWith('.d.ts'));
  assert.deepEqual(unwanted, [], 'nothing of the tests, benchmarks or sources');
  for (const f of ['package.json', 'README.md', 'install.sh', 'config.example.toml', 'bin/kowalski', 'dist/bin/kowalski.js', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'engine/plugins/runner/plugin-host.mjs', 'ui/dist/index.html', 'ui/dist/app.js']) {
    assert.ok(files.includes(f), `${f} is in the tarball`);
  }
  // Every built module of the program, every built-in horde's and agent profile's file.
  const shipped = (folder: string, keep: (rel: string) => boolean): string[] => fs.readdirSync(path.join(REPO, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(REPO, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter(keep);
  const expected = [
    ...shipped('dist', (f) => f.endsWith('.js') && !/^dist\/(bench|testkit|test)\//.test(f)),
    ...shipped('hordes', () => true),
    ...shipped('team', () => true),
  ];
  assert.deepEqual(expected.filter((f) => !files.includes(f)), [], 'every built module, built-in horde and agent profile is in the tarball');
});

test('install.sh installs nothing when the sum is not the tarball\'s (exit 1, both sums named), and bad usage is exit 2', async (t) => {
  const root = tempDir(t, 'kw-install-');
  const prefix = path.join(root, 'prefix');
  const wrong = '0'.repeat(64);
  const r = await run(['sh', INSTALL_SH], ['--prefix', prefix, packed.tarball, wrong], { env: INSTALL_ENV, cwd: root });
  assert.equal(r.code, 1, outputOf(r));
  const actual = crypto.createHash('sha256').update(fs.readFileSync(packed.tarball)).digest('hex');
  assert.match(r.stderr, new RegExp(`the SHA-256 of .*kowalski-[\\d.]+\\.tgz is ${actual}, not the expected ${wrong}: .*nothing was installed \\[KW_ERR_INSTALL_CHECKSUM\\]`));
  assert.equal(fs.existsSync(prefix), false, 'nothing was installed: the prefix was not even made');

  const sumFile = path.join(root, 'kowalski.tgz.sha256');
  fs.writeFileSync(sumFile, 'not-a-sum  kowalski.tgz\n');
  const badFile = await run(['sh', INSTALL_SH], ['--prefix', prefix, packed.tarball, sumFile], { env: INSTALL_ENV, cwd: root });
  assert.equal(badFile.code, 1, outputOf(badFile));
  assert.match(badFile.stderr, /the sum file .* does not start with a SHA-256 \(64 hex digits\): it starts with "not-a-sum" \[KW_ERR_INSTALL_SOURCE\]/);

  const usage = await run(['sh', INSTALL_SH], [packed.tarball], { env: INSTALL_ENV, cwd: root });
  assert.equal(usage.code, 2, outputOf(usage));
  assert.match(usage.stderr, /SHA256 is missing .*\[KW_ERR_USAGE\][\s\S]*usage: install\.sh \[--prefix DIR\] TARBALL SHA256/);
  assert.equal(fs.existsSync(prefix), false);
});

test('install.sh with the right sum installs into --prefix; that kowalski serve lists the built-in hordes and serves the app', { timeout: 900_000 }, async (t) => {
  const defer = cleanups(t);
  const root = tempDir(t, 'kw-install-');
  const prefix = path.join(root, 'prefix');
  const sumFile = path.join(root, `${path.basename(packed.tarball)}.sha256`);
  fs.writeFileSync(sumFile, `${crypto.createHash('sha256').update(fs.readFileSync(packed.tarball)).digest('hex')}  ${path.basename(packed.tarball)}\n`);

  const started = Date.now();
  const install = await run(['sh', INSTALL_SH], ['--prefix', prefix, packed.tarball, sumFile], { env: INSTALL_ENV, cwd: root, limitMs: 840_000 });
  t.diagnostic(`install.sh took ${Math.round((Date.now() - started) / 1000)} s`);
  assert.equal(install.code, 0, outputOf(install));
  const bin = path.join(prefix, 'bin', 'kowalski');
  assert.match(install.stdout, new RegExp(`kowalski [\\d.]+ is installed: ${bin.replace(/[.]/g, '\\.')}\\n`));
  assert.match(install.stdout, /next: .*kowalski serve/);
  assert.doesNotMatch(`${install.stdout}${install.stderr}`, /EBADENGINE/, 'no dependency wants a newer Node than the engines kowalski states');
  const installed = path.join(prefix, 'lib', 'node_modules', 'kowalski');
  assert.equal(fs.existsSync(path.join(installed, 'test')), false);

  // The installed command, from a folder that is not the checkout, on a data folder of its own.
  const home = path.join(root, 'home');
  writeTestToken(home);
  const server: RunningCli = startCli(home, ['serve', '--no-open', '--port', '0'], { command: [bin], cwd: root, env: NO_NPM_ENV, limitMs: 120_000 });
  server.exited.catch(() => undefined); // awaited below
  defer(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server.exited.catch(() => undefined);
  });
  const url = SERVING.exec(await server.stderrLine(SERVING))![1]!;

  const hordes = await fetch(new URL('api/hordes', url), { headers: AUTH });
  assert.equal(hordes.status, 200);
  const listed = ((await hordes.json()) as { hordes: { id: string; origin: string }[] }).hordes;
  const builtIn = fs.readdirSync(path.join(REPO, 'hordes')).sort();
  assert.ok(builtIn.length > 0);
  assert.deepEqual(listed.filter((h) => h.origin === 'builtin').map((h) => h.id).sort(), builtIn, 'the built-in hordes, from the installed package');

  const page = await fetch(new URL('/', url));
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(await page.text(), fs.readFileSync(path.join(REPO, 'ui', 'dist', 'index.html'), 'utf8'), "the app's index.html");
  assert.equal((await fetch(new URL('/app.js', url))).status, 200, "the app's script");

  server.child.kill('SIGTERM');
  const stopped = await server.exited;
  assert.equal(stopped.code, 0, outputOf(stopped));
});
