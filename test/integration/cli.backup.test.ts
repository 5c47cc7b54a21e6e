/**
 * `kowalski backup` / `restore`: a backup taken by a real CLI process while an engine runs
 * 20 runs (and keeps starting more) restores to a data folder an engine starts on, holding
 * every run acknowledged before the backup began; a damaged, tampered or zip-slip archive
 * is refused with KW_ERR_BACKUP_INVALID and nothing is placed at --to; secrets only with
 * --with-secrets.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { unzipSync, zipSync } from 'fflate';
import type { KowalskiError } from '../../core/index.js';
import { restoreBackup } from '../../engine/index.js';
import { cli, outputOf, stdoutJson } from '../../testkit/cli.js';
import { miniHorde } from '../support/hordes.js';
import { testEngine } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';

const CONFIG = `# my settings
[model]
default = "ollama:qwen2.5:7b"

[providers.anthropic]
api_key = "sk-ant-SECRET-1"

[tools.web_search]
provider = "brave"
api_key = "SECRET-5"

[webhook_secrets]
"gh/push" = "whsec-SECRET-2"

[adapters.hook]
type = "webhook"
agent = "assistant"
secret = "whsec-SECRET-6"

[adapters.mail]
type = "email"
[adapters.mail.imap]
host = "imap.example.org"
password = "SECRET-7"
[adapters.mail.smtp]
host = "smtp.example.org"
password_env = "KW_TEST_SMTP_PASSWORD"

[[mcp.servers]]
name = "remote"
url = "http://127.0.0.1:9/mcp"
token = "SECRET-3"
`;

interface BackupJson { file: string; runs: number; files: number; redacted: string[]; withSecrets: boolean; skipped: { path: string; why: string }[] }

/** A small data folder made by an engine, with a config full of secrets and the API token. */
async function smallHome(t: TestContext): Promise<string> {
  const home = path.join(tempDir(t, 'kw-bk-src-'), 'home');
  const engine = await testEngine(t, {}, home);
  const id = await engine.startRun(miniHorde(['a']), {});
  await engine.waitForRun(id);
  await engine.close();
  fs.writeFileSync(path.join(home, 'config.toml'), CONFIG);
  fs.writeFileSync(path.join(home, 'api-token'), 'TOKEN-SECRET-4-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n', { mode: 0o600 });
  // An MCP server's sign-in, as `kowalski mcp login` keeps it.
  fs.mkdirSync(path.join(home, 'secrets', 'mcp-oauth'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home, 'secrets', 'mcp-oauth', 'remote.json'), '{"tokens":{"access_token":"OAUTH-SECRET-7","refresh_token":"OAUTH-SECRET-8"}}\n', { mode: 0o600 });
  fs.mkdirSync(path.join(home, 'vault', 'notes'), { recursive: true });
  fs.writeFileSync(path.join(home, 'vault', 'notes', 'a.md'), '# a note\n');
  fs.mkdirSync(path.join(home, 'plugins', 'local', 'p1', 'node_modules', 'dep'), { recursive: true });
  fs.writeFileSync(path.join(home, 'plugins', 'local', 'p1', 'kowalski-plugin.json'), '{"name":"p1"}\n');
  fs.writeFileSync(path.join(home, 'plugins', 'local', 'p1', 'node_modules', 'dep', 'index.js'), 'export {};\n');
  fs.mkdirSync(path.join(home, 'plugins', 'node_modules', 'kowalski-plugin-x'), { recursive: true });
  fs.writeFileSync(path.join(home, 'plugins', 'package.json'), '{"dependencies":{"kowalski-plugin-x":"1.0.0"}}\n');
  fs.writeFileSync(path.join(home, 'plugins', 'node_modules', 'kowalski-plugin-x', 'index.js'), 'export {};\n');
  return home;
}

test('a backup taken while 20 runs execute restores to a folder an engine starts on, with every run acknowledged before it', async (t) => {
  const root = tempDir(t, 'kw-bk-');
  const home = path.join(root, 'home');
  const gates = path.join(root, 'gates');
  fs.mkdirSync(gates);
  const engine = await testEngine(t, { maxParallelSteps: 40 }, home);
  // `first` runs a command (so the run has its folder, with the command's output), `wait` holds the run until its gate file exists.
  const horde = miniHorde(['first', 'wait', 'last'], [], { first: { kind: 'verify', verifyCommand: 'echo started' }, wait: { kind: 'gate' } }, {
    confirmCommands: false, inputs: [{ id: 'gate', type: 'text', label: 'gate', required: true }],
  });
  const gate = (i: number): string => path.join(gates, `g${i}`);

  const acknowledged: string[] = [];
  for (let i = 0; i < 20; i++) acknowledged.push(await engine.startRun(horde, { gate: gate(i) }));
  const atGate = (id: string): boolean => engine.getRun(id).steps.some((s) => s.name === 'wait' && s.state === 'running');
  await waitFor(() => acknowledged.every(atGate), '20 runs executing, each at its gate', 120_000);

  // Load while the backup runs: new runs started, and gates opened so runs finish and write.
  let stop = false;
  let next = 20;
  const during: string[] = [];
  const load = (async () => {
    for (let i = 0; !stop; i++) {
      during.push(await engine.startRun(horde, { gate: gate(next++) }));
      if (i % 2 === 0) fs.writeFileSync(gate(i), '');
      await new Promise((r) => setImmediate(r));
    }
  })();
  const file = path.join(root, 'backup.zip');
  const foldersBefore = fs.readdirSync(path.join(home, 'runs'));
  const backup = await cli(home, ['backup', file, '--json']);
  stop = true;
  await load;
  assert.equal(backup.code, 0, outputOf(backup));
  const made = stdoutJson<BackupJson>(backup);
  assert.ok(made.runs >= 20, `the snapshot holds ${made.runs} runs`);
  assert.ok(during.length > 0, 'runs were started while the backup ran');
  for (let i = 0; i < next; i++) fs.writeFileSync(gate(i), '');

  const restored = path.join(root, 'restored');
  const restore = await cli(path.join(root, 'other-home'), ['restore', file, '--to', restored, '--json']);
  assert.equal(restore.code, 0, outputOf(restore));
  assert.equal(stdoutJson<{ to: string }>(restore).to, restored);

  const copy = await testEngine(t, {}, restored);
  for (const id of acknowledged) {
    const view = copy.getRun(id);
    assert.equal(view.run.id, id);
  }
  assert.ok(foldersBefore.length > 0);
  for (const folder of foldersBefore) assert.ok(fs.existsSync(path.join(restored, 'runs', folder)), `the run folder ${folder} is restored`);
  // The runs that were executing are carried on by the restored engine.
  const recovered = await copy.recover();
  assert.deepEqual(recovered.failed, []);
  await Promise.all(acknowledged.map(async (id) => assert.equal(await copy.waitForRun(id), 'succeeded')));
});

test('secrets (adapters\' too, MCP sign-ins in secrets/): left out of config.toml, the API token and secrets/ unless --with-secrets; plugins/ is kept without its node_modules', async (t) => {
  const home = await smallHome(t);
  const root = tempDir(t, 'kw-bk-');
  const plain = path.join(root, 'plain.zip');
  const r1 = await cli(home, ['backup', plain, '--json']);
  assert.equal(r1.code, 0, outputOf(r1));
  const made = stdoutJson<BackupJson>(r1);
  assert.deepEqual(made.redacted, [
    'providers.anthropic.api_key', 'tools.web_search.api_key', 'webhook_secrets', 'adapters.hook.secret', 'adapters.mail.imap.password', 'mcp.servers[0].token', 'api-token', 'secrets/',
  ]);
  assert.deepEqual(made.skipped.map((s) => s.path), ['plugins/local/p1/node_modules', 'plugins/node_modules']);
  const to1 = path.join(root, 'plain');
  const restored = await cli(home, ['restore', plain, '--to', to1]);
  assert.equal(restored.code, 0, outputOf(restored));
  assert.match(restored.stdout, /left out the plugins' packages \(plugins\/local\/p1\/node_modules, plugins\/node_modules\): install them again/);
  const config = fs.readFileSync(path.join(to1, 'config.toml'), 'utf8');
  assert.doesNotMatch(config, /SECRET/);
  assert.match(config, /ollama:qwen2\.5:7b/);
  assert.match(config, /http:\/\/127\.0\.0\.1:9\/mcp/);
  assert.equal(fs.existsSync(path.join(to1, 'api-token')), false);
  assert.equal(fs.existsSync(path.join(to1, 'secrets')), false);
  assert.match(restored.stdout, /sign in to MCP servers again with `kowalski mcp login <server>`/);
  assert.match(config, /password_env = "KW_TEST_SMTP_PASSWORD"/);
  assert.match(config, /host = "imap\.example\.org"/);
  assert.equal(fs.readFileSync(path.join(to1, 'vault', 'notes', 'a.md'), 'utf8'), '# a note\n');
  assert.equal(fs.readFileSync(path.join(to1, 'plugins', 'local', 'p1', 'kowalski-plugin.json'), 'utf8'), '{"name":"p1"}\n');
  assert.equal(fs.existsSync(path.join(to1, 'plugins', 'package.json')), true);
  assert.equal(fs.existsSync(path.join(to1, 'plugins', 'local', 'p1', 'node_modules')), false);
  assert.equal(fs.existsSync(path.join(to1, 'plugins', 'node_modules')), false);
  assert.doesNotMatch(fs.readFileSync(plain).toString('latin1'), /SECRET/);

  const full = path.join(root, 'full.zip');
  const r2 = await cli(home, ['backup', full, '--with-secrets', '--json']);
  assert.equal(r2.code, 0, outputOf(r2));
  assert.deepEqual(stdoutJson<BackupJson>(r2).redacted, []);
  const to2 = path.join(root, 'full');
  assert.equal((await cli(home, ['restore', full, '--to', to2])).code, 0);
  assert.equal(fs.readFileSync(path.join(to2, 'config.toml'), 'utf8'), CONFIG);
  assert.match(fs.readFileSync(path.join(to2, 'api-token'), 'utf8'), /TOKEN-SECRET-4/);
  const signIn = path.join(to2, 'secrets', 'mcp-oauth', 'remote.json');
  assert.match(fs.readFileSync(signIn, 'utf8'), /OAUTH-SECRET-8/);
  assert.equal(fs.statSync(signIn).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.join(to2, 'secrets')).mode & 0o777, 0o700);
});

test('a damaged archive (one byte flipped) is refused with KW_ERR_BACKUP_INVALID and nothing is placed at --to', async (t) => {
  const home = await smallHome(t);
  const root = tempDir(t, 'kw-bk-');
  const file = path.join(root, 'b.zip');
  assert.equal((await cli(home, ['backup', file])).code, 0);
  const bytes = fs.readFileSync(file);
  bytes[Math.floor(bytes.length / 3)]! ^= 0x01; // inside the compressed database
  const bad = path.join(root, 'bad.zip');
  fs.writeFileSync(bad, bytes);
  const to = path.join(root, 'to');
  const r = await cli(home, ['restore', bad, '--to', to, '--json']);
  assert.equal(r.code, 2, outputOf(r));
  assert.equal(stdoutJson<{ error: { code: string } }>(r).error.code, 'KW_ERR_BACKUP_INVALID');
  assert.equal(fs.existsSync(to), false);
  assert.deepEqual(fs.readdirSync(root).sort(), ['b.zip', 'bad.zip']);
});

/** Rebuild an archive's entries with `change` applied, keeping a consistent ZIP (so only our own checks can catch it). */
function rebuild(file: string, out: string, change: (files: Record<string, Uint8Array>, manifest: { files: { path: string; size: number; sha256: string }[]; dirs: string[] }) => void): void {
  const files = unzipSync(fs.readFileSync(file));
  const manifest = JSON.parse(Buffer.from(files['kowalski-backup.json']!).toString('utf8'));
  delete files['kowalski-backup.json'];
  change(files, manifest);
  fs.writeFileSync(out, zipSync({ ...files, 'kowalski-backup.json': Buffer.from(JSON.stringify(manifest)) }));
}

test('a tampered file (consistent ZIP, wrong SHA-256), an unlisted entry and a zip-slip entry are refused; --to must be empty', async (t) => {
  const home = await smallHome(t);
  const root = tempDir(t, 'kw-bk-');
  const file = path.join(root, 'b.zip');
  assert.equal((await cli(home, ['backup', file])).code, 0);
  const refuse = async (archive: string, pattern: RegExp): Promise<void> => {
    const to = path.join(root, `to-${path.basename(archive)}`);
    const r = await cli(home, ['restore', archive, '--to', to]);
    assert.equal(r.code, 2, outputOf(r));
    assert.match(r.stderr, /KW_ERR_BACKUP_INVALID/);
    assert.match(r.stderr, pattern);
    assert.equal(fs.existsSync(to), false);
  };

  const tampered = path.join(root, 'tampered.zip');
  rebuild(file, tampered, (files) => void (files['vault/notes/a.md'] = Buffer.from('# b note\n')));
  await refuse(tampered, /vault\/notes\/a\.md's SHA-256/);

  const extra = path.join(root, 'extra.zip');
  rebuild(file, extra, (files) => void (files['runs/x.txt'] = Buffer.from('x')));
  await refuse(extra, /"runs\/x\.txt" is not listed/);

  const slip = path.join(root, 'slip.zip');
  const escaped = path.join(root, 'escaped.txt');
  rebuild(file, slip, (files, manifest) => {
    const data = Buffer.from('out');
    files['../escaped.txt'] = data;
    manifest.files.push({ path: '../escaped.txt', size: data.length, sha256: crypto.createHash('sha256').update(data).digest('hex') });
  });
  await refuse(slip, /zip-slip/);
  assert.equal(fs.existsSync(escaped), false);

  const busy = path.join(root, 'busy');
  fs.mkdirSync(busy);
  fs.writeFileSync(path.join(busy, 'x'), '');
  const r = await cli(home, ['restore', file, '--to', busy]);
  assert.equal(r.code, 2, outputOf(r));
  assert.match(r.stderr, /KW_ERR_BACKUP_TARGET/);
  const again = await cli(home, ['backup', file]);
  assert.equal(again.code, 2, outputOf(again));
  assert.match(again.stderr, /exists already.*KW_ERR_BACKUP_TARGET/);
});

/** Put `data` at `name` in a rebuilt archive, listed in the manifest with its size and SHA-256. */
function put(files: Record<string, Uint8Array>, manifest: { files: { path: string; size: number; sha256: string }[] }, name: string, data: Uint8Array): void {
  files[name] = data;
  manifest.files = manifest.files.filter((f) => f.path !== name);
  manifest.files.push({ path: name, size: data.length, sha256: crypto.createHash('sha256').update(data).digest('hex') });
}

/** The bytes of a new SQLite database that `build` fills. */
function sqliteBytes(dir: string, build: (db: Database.Database) => void): Buffer {
  const file = path.join(dir, `db-${crypto.randomUUID()}.sqlite`);
  const db = new Database(file);
  build(db);
  db.close();
  return fs.readFileSync(file);
}

test('hostile archives and --to through a link get a coded refusal (exit 2, no raw errno), and nothing is placed', async (t) => {
  const home = await smallHome(t);
  const root = tempDir(t, 'kw-bk-');
  const file = path.join(root, 'b.zip');
  assert.equal((await cli(home, ['backup', file])).code, 0);
  const original = Buffer.from(unzipSync(fs.readFileSync(file))['kowalski.sqlite']!);
  const fileWith = (bytes: Buffer): string => {
    const at = path.join(root, `copy-${crypto.randomUUID()}.sqlite`);
    fs.writeFileSync(at, bytes);
    return at;
  };
  type Manifest = { files: { path: string; size: number; sha256: string }[]; dirs: string[] };
  const cases: Array<[string, (files: Record<string, Uint8Array>, manifest: Manifest) => void, RegExp]> = [
    ['long-segment', (f, m) => put(f, m, `vault/${'n'.repeat(300)}.md`, Buffer.from('x')), /one of whose names is 303 bytes \(at most 255\)/],
    ['long-name', (f, m) => put(f, m, `vault/${Array.from({ length: 6 }, () => 'd'.repeat(200)).join('/')}.md`, Buffer.from('x')), /a name of 1214 bytes \(at most 1024\)/],
    ['file-as-folder', (f, m) => put(f, m, 'vault/notes/a.md/inner.md', Buffer.from('x')), /"vault\/notes\/a\.md" as a file and "vault\/notes\/a\.md\/inner\.md" inside it/],
    ['dir-is-file', (_f, m) => void m.dirs.push('vault/notes/a.md'), /"vault\/notes\/a\.md" as a file and as a folder/],
    ['listed-twice', (_f, m) => void m.files.push({ ...m.files.find((x) => x.path === 'vault/notes/a.md')! }), /lists the file "vault\/notes\/a\.md" twice/],
    ['empty-db', (f, m) => put(f, m, 'kowalski.sqlite', sqliteBytes(root, () => undefined)), /no kowalski schema \(no migration recorded\): an empty database, or another program's/],
    ['foreign-db', (f, m) => put(f, m, 'kowalski.sqlite', sqliteBytes(root, (db) => db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL); INSERT INTO schema_migrations VALUES (7, \'orders\', 0)'))), /not kowalski's schema: it records migration 7 as "orders", where kowalski's is "vault_index"/],
    ['newer-db', (f, m) => put(f, m, 'kowalski.sqlite', sqliteBytes(root, (db) => {
      db.exec('PRAGMA journal_mode = DELETE');
      db.prepare('ATTACH DATABASE ? AS original').run(fileWith(original));
      db.exec("CREATE TABLE schema_migrations AS SELECT * FROM original.schema_migrations; INSERT INTO schema_migrations VALUES (999, 'from-the-future', 0)");
    })), /written by a newer kowalski \(schema 999/],
  ];
  // Each refused by the engine's restore; two of them through the real CLI too (exit 2, the code in --json).
  for (const [name, change, pattern] of cases) {
    const archive = path.join(root, `${name}.zip`);
    rebuild(file, archive, change);
    const to = path.join(root, `to-${name}`);
    assert.throws(() => restoreBackup(archive, to), (err: KowalskiError) => err.code === 'KW_ERR_BACKUP_INVALID' && pattern.test(err.message), name);
    assert.equal(fs.existsSync(to), false, name);
    if (name !== 'long-segment' && name !== 'empty-db') continue;
    const r = await cli(home, ['restore', archive, '--to', to, '--json']);
    assert.equal(r.code, 2, `${name}: ${outputOf(r)}`);
    const error = stdoutJson<{ error: { code: string; message: string } }>(r).error;
    assert.equal(error.code, 'KW_ERR_BACKUP_INVALID', name);
    assert.match(error.message, pattern, name);
    assert.equal(fs.existsSync(to), false, name);
  }
  assert.deepEqual(fs.readdirSync(root).filter((n) => n.includes('restoring')), [], 'no staging folder left');

  const empty = path.join(root, 'empty-folder');
  fs.mkdirSync(empty);
  const link = path.join(root, 'link');
  fs.symlinkSync(empty, link);
  const dangling = path.join(root, 'dangling');
  fs.symlinkSync(path.join(root, 'nowhere'), dangling);
  for (const [to, pattern] of [[link, /is a symbolic link: name the folder itself/], [path.join(dangling, 'home'), /dangling is a link that leads nowhere/]] as const) {
    const r = await cli(home, ['restore', file, '--to', to, '--json']);
    assert.equal(r.code, 2, outputOf(r));
    const error = stdoutJson<{ error: { code: string; message: string } }>(r).error;
    assert.equal(error.code, 'KW_ERR_BACKUP_TARGET');
    assert.match(error.message, pattern);
  }
  assert.deepEqual(fs.readdirSync(empty), []);
  // Through a link on the way (not the last name) the restore lands in the real folder.
  const through = path.join(link, 'home');
  const ok = await cli(home, ['restore', file, '--to', through, '--json']);
  assert.equal(ok.code, 0, outputOf(ok));
  assert.equal(fs.existsSync(path.join(empty, 'home', 'kowalski.sqlite')), true);
});

test('a node of a Postgres store: the backup says the shared store is not in it, and where it is (no password shown)', async (t) => {
  const home = await smallHome(t);
  fs.appendFileSync(path.join(home, 'config.toml'), '\n[store]\nurl = "postgres://kw:PG-SECRET-9@db.example:5433/kowalski"\nfiles = "/srv/kowalski"\n');
  const file = path.join(tempDir(t, 'kw-bk-'), 'node.zip');
  const r = await cli(home, ['backup', file]);
  assert.equal(r.code, 0, outputOf(r));
  assert.match(r.stdout, /^ {2}skipped \[store\]: this data folder is a node of the Postgres store db\.example:5433\/kowalski: its runs, chats, traces, vault audit and adapters' records are in that database, its run folders and vault notes under \/srv\/kowalski, none of which is in this archive\. Back them up there \(pg_dump, and a copy of that folder\), or copy the store into a data folder first \(kowalski store copy --from <url> --to sqlite\) and back that up$/m);
  assert.doesNotMatch(r.stdout, /PG-SECRET/);
  assert.doesNotMatch(fs.readFileSync(file).toString('latin1'), /PG-SECRET/, 'the URL\'s password is left out of the archive');
  const to = path.join(tempDir(t, 'kw-bk-'), 'restored');
  assert.equal((await cli(home, ['restore', file, '--to', to])).code, 0, 'the archive restores');
});
