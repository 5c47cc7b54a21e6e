/**
 * engine.plugins with the real runner: the example plugin is not offered before a grant,
 * offered and callable by a chat agent after it (its tool's answer reaches the model), a
 * changed manifest sends it back to pending, a revoke is audited, the package wins a name
 * clash, and bad plugins are listed with their phase while the engine serves; how plugins
 * are confined, and the engine's data folder kept from them, both ways.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Engine } from '../../engine/index.js';
import { findBwrap } from '../../engine/plugins/runner/index.js';
import { chatSetup, profile } from '../../testkit/chat.js';
import { testEngine } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { editManifest, installExample, installExamplePackage } from '../support/plugin-home.js';

/** The tool names a request to the fake model offered. */
const offered = (body: any): string[] => (body?.tools ?? []).map((t: any) => t.function?.name ?? t.name);

test('the example plugin: not offered before the grant, called by an agent after it, pending again when its manifest changes, revoke audited', async (t) => {
  const home = tempDir(t, 'kw-plug-home-');
  const docs = fs.realpathSync(tempDir(t, 'kw-plug-docs-'));
  fs.writeFileSync(path.join(docs, 'note.txt'), 'one two three four');
  const manifest = installExample(home, docs);
  // The agent lists no tools: it is offered every tool the engine has.
  let turn = 0;
  const s = await chatSetup(t, () => {
    turn += 1;
    return turn === 2 ? { toolCalls: [{ name: 'hello__word_count', arguments: { path: path.join(docs, 'note.txt') } }] } : { text: 'done' };
  }, { helper: profile('helper', '') }, '', home);
  const { engine, server } = s;

  assert.deepEqual(engine.plugins.list().map((p) => [p.name, p.state, p.source]), [['hello', 'pending', 'folder']]);
  const session = engine.chat.create({ agent: 'helper' });
  await engine.chat.send(session.id, 'hi').done;
  assert.ok(!offered(server.requests.at(-1)?.body).some((n) => n.startsWith('hello__')), 'a pending plugin is not offered');

  const granted = engine.plugins.grant('hello', 'ann');
  let changes = 0;
  engine.on('plugins:changed', () => void (changes += 1));
  assert.equal(granted.state, 'granted');
  assert.equal(granted.grantedBy, 'ann');
  assert.deepEqual(granted.permissionsText, [`read files in ${docs}`]);
  await engine.chat.send(session.id, 'count the words of note.txt').done;
  const asked = server.requests.at(-2)!.body;
  assert.ok(offered(asked).includes('hello__word_count') && offered(asked).includes('hello__greet'), `granted tools offered: ${offered(asked).join(', ')}`);
  const toolMessage = (server.requests.at(-1)!.body.messages as any[]).find((m) => m.role === 'tool');
  assert.match(String(toolMessage?.content), /note\.txt: 4 words/);
  assert.equal(engine.plugins.get('hello').process?.running, true, 'started on the first call');
  assert.equal(changes, 1, 'its process starting is a change the Plugins screen hears of');

  // A new permission: the old grant no longer matches, the tools are gone, the process stopped.
  editManifest(manifest, 'fs.read = [', 'net = ["api.example.com"]\nfs.read = [');
  const after = await engine.plugins.rescan();
  assert.equal(after[0]?.state, 'pending');
  assert.match(after[0]?.warnings.join('\n') ?? '', /granted for version 1\.0\.0 with other permissions by ann/);
  assert.equal(after[0]?.process, null);
  await engine.chat.send(session.id, 'again').done;
  assert.ok(!offered(server.requests.at(-1)?.body).some((n) => n.startsWith('hello__')), 'pending again: not offered');

  engine.plugins.grant('hello', 'ann');
  editManifest(manifest, 'version = "1.0.0"', 'version = "1.1.0"');
  assert.equal((await engine.plugins.rescan())[0]?.state, 'pending', 'a new version is pending too');
  engine.plugins.grant('hello', 'bob');
  assert.equal(engine.plugins.revoke('hello', 'carl').state, 'pending');
  assert.deepEqual(engine.plugins.audit('hello').map((a) => [a.action, a.version, a.by]), [
    ['grant', '1.0.0', 'ann'], ['grant', '1.0.0', 'ann'], ['grant', '1.1.0', 'bob'], ['revoke', '1.1.0', 'carl'],
  ]);
  assert.throws(() => engine.plugins.grant('nope', 'ann'), { code: 'KW_ERR_PLUGIN_NOT_FOUND' });
});

test('a package and a folder of the same name: the package wins, with a warning; bad plugins are listed with their phase', async (t) => {
  const home = tempDir(t, 'kw-plug-home-');
  const docs = fs.realpathSync(tempDir(t, 'kw-plug-docs-'));
  installExample(home, docs);
  installExamplePackage(home, docs, 'kowalski-plugin-hello');
  const future = installExample(home, docs, 'future');
  editManifest(future, 'name = "hello"', 'name = "future"');
  editManifest(future, 'kowalski = ">=0.1.0 <1"', 'kowalski = ">=9"');
  const broken = installExample(home, docs, 'broken');
  editManifest(broken, 'name = "hello"', 'name = "Broken"');
  const missing = installExample(home, docs, 'missing');
  editManifest(missing, 'name = "hello"', 'name = "missing"');
  fs.rmSync(path.join(path.dirname(missing), 'index.js'));
  fs.mkdirSync(path.join(home, 'plugins', 'local', 'empty'));
  const s = await chatSetup(t, [], { helper: profile('helper', '') }, '', home);
  const list = s.engine.plugins.list();
  const by = new Map(list.map((p) => [p.name, p]));
  assert.equal(by.get('hello')?.source, 'package');
  assert.match(by.get('hello')?.warnings.join('\n') ?? '', /another plugin named "hello" \(folder .*local\/hello\) is ignored: the package wins/);
  assert.equal(by.get('hello')?.state, 'pending');
  const failure = (name: string) => by.get(name)?.failures.map((f) => `${f.phase}: ${f.message}`).join('\n') ?? '(not listed)';
  assert.match(failure('future'), /^validate: .*kowalski-plugin\.toml:9: kowalski: future 1\.0\.0 works with kowalski >=9, and this is kowalski 0\.1\.0: refused/);
  assert.equal(by.get('future')?.state, 'invalid');
  assert.match(failure('broken'), /^validate: .*kowalski-plugin\.toml:4: name: must be lowercase/);
  assert.match(failure('missing'), /^load: .*index\.js: the module a \[\[tools\]\] entry names does not exist/);
  assert.match(failure('empty'), /^discover: .*no kowalski-plugin\.toml here/);
  assert.throws(() => s.engine.plugins.grant('future', 'ann'), { code: 'KW_ERR_PLUGIN_INVALID' });
});

test("the engine says how its plugins are confined, and keeps its own data folder from them: hidden under bubblewrap, refused without", async (t) => {
  /** A data folder (and a note) under a folder the example plugin is granted whole. */
  const setup = (): { home: string; note: string } => {
    const base = fs.realpathSync(tempDir(t, 'kw-plug-conf-'));
    const home = path.join(base, 'home');
    fs.mkdirSync(path.join(base, 'docs'));
    const note = path.join(base, 'docs', 'note.txt');
    fs.writeFileSync(note, 'one two three');
    installExample(home, base);
    return { home, note };
  };
  const wordCount = (engine: Engine, file: string) => {
    const tool = engine.plugins.tools().find((x) => x.spec.name === 'hello__word_count');
    assert.ok(tool !== undefined, 'granted: offered');
    return tool.call({ path: file }, { signal: new AbortController().signal });
  };

  const off = setup();
  const nodeOnly = await testEngine(t, {}, off.home, { bwrap: null });
  assert.deepEqual(nodeOnly.plugins.list()[0]?.confinement, {
    kind: 'node', detail: "Node's permission model only: it can open sockets and send signals (bubblewrap is turned off for this engine)",
  });
  assert.deepEqual(await nodeOnly.plugins.confinement(), nodeOnly.plugins.list()[0]?.confinement);
  nodeOnly.plugins.grant('hello', 'ann');
  const refused = new RegExp(`^plugin hello: its fs\\.read path ${path.dirname(off.home)} holds kowalski's data folder ${off.home} \\(its API token, config and database\\), and without bubblewrap`);
  await assert.rejects(wordCount(nodeOnly, off.note), { code: 'KW_ERR_PLUGIN_START', message: refused });
  assert.deepEqual(nodeOnly.plugins.list()[0]?.failures.map((f) => [f.phase, f.code]), [['start', 'KW_ERR_PLUGIN_START']]);

  if (findBwrap() === undefined) {
    t.diagnostic('bubblewrap is not installed here: its half of this test is skipped (apt-get install bubblewrap)');
    return;
  }
  const on = setup();
  fs.writeFileSync(path.join(on.home, 'api-token'), 'kw-secret-token');
  const engine = await testEngine(t, {}, on.home);
  const confinement = engine.plugins.list()[0]?.confinement;
  assert.equal(confinement?.kind, 'bwrap', confinement?.detail);
  assert.match(confinement.detail, /^bubblewrap \(\/.*bwrap\): its own network and PID namespaces/);
  engine.plugins.grant('hello', 'ann');
  assert.equal((await wordCount(engine, on.note)).content, `${on.note}: 3 words`);
  await assert.rejects(wordCount(engine, path.join(on.home, 'api-token')), { code: 'KW_ERR_TOOL_FAILED', message: /ENOENT: no such file or directory, open '.*\/home\/api-token'/ });
  await assert.rejects(wordCount(engine, path.join(on.home, 'kowalski.sqlite')), { code: 'KW_ERR_TOOL_FAILED', message: /ENOENT/ });
  assert.ok(fs.existsSync(path.join(on.home, 'kowalski.sqlite')));
});
