/**
 * The vault's audit through the real engine: a chat agent (the scripted fake Ollama)
 * calls create_note then append_note; each write is one row with the right sizes, hashes,
 * session, agent and the trace of the model call that asked for it. Then reverts: of the
 * append, of the create, a revert refused after a human edit (with the diff), and the
 * rules around them; two appends at once never interleave; a call made again with the
 * same key finds its write.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { VaultConflictError } from '../../engine/index.js';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const TEAM = { scribe: profile('scribe', 'tools = ["create_note", "append_note", "read_note"]'), helper: profile('helper', '') };
const origin = (key: string | null) => ({ sessionId: null, agent: null, traceId: null, callKey: key, by: 'cli' });

async function scribeSession(t: Parameters<typeof chatSetup>[0]) {
  const s = await chatSetup(t, perAgent({
    scribe: [
      { toolCalls: [{ name: 'create_note', arguments: { path: 'meetings/monday.md', content: '# Monday\n- budget' } }] },
      { toolCalls: [{ name: 'append_note', arguments: { path: 'meetings/monday.md', content: '- hiring\n' } }] },
      { text: 'Noted both.' },
    ],
  }), TEAM);
  const session = s.engine.chat.create({ agent: 'scribe' });
  const out = await s.engine.chat.send(session.id, 'note the meeting').done;
  assert.equal(out.stop, 'done', JSON.stringify(out));
  return { ...s, session, file: path.join(s.home, 'vault', 'meetings', 'monday.md') };
}

test('a chat agent creates then appends to a note: one row per write, with sizes, hashes and the trace of the model call that asked', async (t) => {
  const s = await scribeSession(t);
  assert.equal(fs.readFileSync(s.file, 'utf8'), '# Monday\n- budget\n- hiring\n');
  const writes = s.engine.vault.writes({ sessionId: s.session.id });
  assert.deepEqual(writes.map((w) => [w.writeId, w.op, w.path, w.bytesBefore, w.bytesAfter, w.content, w.state, w.by, w.agent, w.sessionId]), [
    [2, 'append', 'meetings/monday.md', 17, 27, '\n- hiring\n', 'done', 'agent', 'scribe', s.session.id],
    [1, 'create', 'meetings/monday.md', 0, 17, '# Monday\n- budget', 'done', 'agent', 'scribe', s.session.id],
  ]);
  assert.deepEqual(writes.map((w) => [w.sha256Before, w.sha256After]), [
    [sha('# Monday\n- budget'), sha('# Monday\n- budget\n- hiring\n')],
    [null, sha('# Monday\n- budget')],
  ]);
  // The trace of each write is the model call whose answer asked for it (seq 1 asked the create, seq 2 the append).
  const traces = s.engine.listTraces({ sessionId: s.session.id, limit: 10 });
  const bySeq = new Map(traces.map((tr) => [tr.seq, tr.id]));
  assert.deepEqual(writes.map((w) => w.traceId), [bySeq.get(2), bySeq.get(1)]);
  assert.ok(writes.every((w) => w.traceId !== null));
  // The model read what the tools answered.
  const toolResults = s.server.requests.filter((r) => r.path === '/api/chat').at(-1)!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
  assert.deepEqual(toolResults, ['Created the note "meetings/monday.md" (17 bytes; write 1).', 'Appended 10 bytes to "meetings/monday.md" (now 27 bytes; write 2).']);
  const offered = s.server.requests.find((r) => r.path === '/api/chat')!.body.tools.map((tool: any) => tool.function.name);
  assert.deepEqual(offered.sort(), ['append_note', 'create_note', 'read_note']);
  assert.deepEqual(s.engine.vault.writes({ path: 'meetings/monday.md', limit: 1 }).map((w) => w.writeId), [2]);
  assert.deepEqual(s.engine.vault.writes({ path: 'meetings/monday.md', before: 2 }).map((w) => w.writeId), [1]);
});

test('revert: the append is cut back to its size before, then the create removes the note; each revert is a row, and a write is reverted once', async (t) => {
  const s = await scribeSession(t);
  const one = await s.engine.vault.write(2);
  assert.match(one.diff, /^\+- hiring$/m);
  assert.match(one.diff, /^ # Monday$/m, 'the note around the append is shown as context');

  const r1 = await s.engine.vault.revert(2, 'cli');
  assert.deepEqual([r1.op, r1.reverts, r1.bytesBefore, r1.bytesAfter, r1.content, r1.by, r1.state, r1.traceId], ['revert', 2, 27, 17, '\n- hiring\n', 'cli', 'done', null]);
  assert.equal(fs.readFileSync(s.file, 'utf8'), '# Monday\n- budget');
  assert.equal(r1.sha256After, sha('# Monday\n- budget'));
  assert.equal(s.engine.vault.writes({ limit: 10 }).find((w) => w.writeId === 2)?.revertedBy, r1.writeId);
  await assert.rejects(s.engine.vault.revert(2, 'cli'), { code: 'KW_ERR_VAULT_NOT_REVERTIBLE', message: /was reverted already, by write 3/ });
  await assert.rejects(s.engine.vault.revert(r1.writeId, 'cli'), { code: 'KW_ERR_VAULT_NOT_REVERTIBLE', message: /is a revert itself/ });

  const r2 = await s.engine.vault.revert(1, 'api');
  assert.deepEqual([r2.bytesBefore, r2.bytesAfter, r2.sha256After, r2.content], [17, 0, null, '# Monday\n- budget']);
  assert.equal(fs.existsSync(s.file), false);
  assert.match((await s.engine.vault.write(r2.writeId)).diff, /^-# Monday$/m);
  await assert.rejects(s.engine.vault.revert(99, 'cli'), { code: 'KW_ERR_VAULT_WRITE_NOT_FOUND' });
});

test('a revert after a human edit is refused with a conflict showing the diff, and the note is left as the human made it', async (t) => {
  const s = await scribeSession(t);
  fs.appendFileSync(s.file, '- coffee (added by hand)\n');
  await assert.rejects(s.engine.vault.revert(2, 'cli'), (err: any) => {
    assert.ok(err instanceof VaultConflictError);
    assert.equal(err.code, 'KW_ERR_VAULT_CONFLICT');
    assert.match(err.message, /no longer ends with what it appended at that size/);
    assert.match(err.diff, /^--- a\/meetings\/monday\.md\tas write 2 left it$/m);
    assert.match(err.diff, /^\+- coffee \(added by hand\)$/m);
    return true;
  });
  // The create is refused too: the note is no longer what it created.
  await assert.rejects(s.engine.vault.revert(1, 'cli'), (err: any) => err.code === 'KW_ERR_VAULT_CONFLICT' && /^-# Monday$/m.test(err.diff) === false && /^\+- hiring$/m.test(err.diff));
  assert.equal(fs.readFileSync(s.file, 'utf8'), '# Monday\n- budget\n- hiring\n- coffee (added by hand)\n');
  assert.equal(s.engine.vault.writes({ limit: 10 }).length, 2, 'a refused revert leaves no row');
});

test('the vault tools are built-ins: a profile without a tools list is offered all five', async (t) => {
  const s = await chatSetup(t, perAgent({ helper: [{ text: 'hi' }] }), TEAM);
  await s.engine.chat.send(s.engine.chat.create({ agent: 'helper' }).id, 'hello').done;
  const offered: string[] = s.server.requests.find((r) => r.path === '/api/chat')!.body.tools.map((tool: any) => tool.function.name);
  for (const name of ['list_notes', 'read_note', 'search_notes', 'create_note', 'append_note']) assert.ok(offered.includes(name), `${name} in ${offered.join(', ')}`);
});

test('two appends to one note at once never interleave, and a write made again with the same call key finds the first', async (t) => {
  const s = await chatSetup(t, [], TEAM);
  const v = s.engine.vault;
  await v.create('log.md', 'start\n', origin('k0'));
  const lines = Array.from({ length: 20 }, (_, i) => `${`line ${i} `.repeat(2000)}\n`);
  const written = await Promise.all(lines.map((l, i) => v.append('log.md', l, origin(`k${i + 1}`))));
  const text = fs.readFileSync(path.join(v.root, 'log.md'), 'utf8');
  assert.equal(text, `start\n${written.map((w) => w.content).join('')}`);
  assert.deepEqual(written.map((w) => w.content).sort(), [...lines].sort(), 'each append is whole');
  assert.ok(written.every((w, i) => i === 0 || w.bytesBefore === written[i - 1]!.bytesAfter), 'each append starts where the one before ended');

  const again = await v.append('log.md', 'ignored', origin('k3'));
  assert.equal(again.writeId, written[2]!.writeId);
  assert.equal(fs.readFileSync(path.join(v.root, 'log.md'), 'utf8'), text, 'nothing written twice');
});
