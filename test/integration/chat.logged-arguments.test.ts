/**
 * A tool call's arguments in the chat log are bounded: a scripted agent (the fake Ollama)
 * creates a 200 KB note (legal: written whole), then asks for a 2 MiB one (refused by the
 * vault), then reads a note with small arguments. The tools get what the model sent; the
 * log keeps the small arguments whole and, for the large ones, a marker with their size
 * and start, so the session's log stays small.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CUT_MARKER, MAX_LOGGED_ARGUMENTS_CHARS } from '../../engine/chat/logged-arguments.js';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';

const TEAM = { scribe: profile('scribe', 'tools = ["create_note", "read_note"]') };

void test('a tool call\'s arguments are logged up to 64 KiB, larger ones as a marker with their size; the tool still gets them whole', async (t) => {
  const legal = 'a'.repeat(200_000);
  const huge = 'b'.repeat(2 * 1024 * 1024);
  const s = await chatSetup(t, perAgent({
    scribe: [
      { toolCalls: [{ name: 'create_note', arguments: { path: 'big.md', content: legal } }] },
      { toolCalls: [{ name: 'create_note', arguments: { path: 'huge.md', content: huge } }] },
      { toolCalls: [{ name: 'read_note', arguments: { path: 'big.md' } }] },
      { text: 'Done.' },
    ],
  }), TEAM);
  const session = s.engine.chat.create({ agent: 'scribe' });
  const out = await s.engine.chat.send(session.id, 'write them').done;
  assert.equal(out.stop, 'done', JSON.stringify(out));
  assert.equal(fs.readFileSync(path.join(s.home, 'vault', 'big.md'), 'utf8'), legal, 'the tool got the arguments whole');
  assert.equal(fs.existsSync(path.join(s.home, 'vault', 'huge.md')), false);

  const events = s.engine.chat.events(session.id);
  const started = events.flatMap((e) => (e.event.type === 'tool.started' ? [e.event] : []));
  assert.deepEqual(started.map((e) => e.name), ['create_note', 'create_note', 'read_note']);
  const [big, refused, small] = started.map((e) => e.arguments);
  for (const [cut, content] of [[big, legal], [refused, huge]] as const) {
    const original = JSON.stringify({ path: cut === big ? 'big.md' : 'huge.md', content }).length;
    assert.equal(cut?.original_chars, original);
    assert.match(String(cut?.[CUT_MARKER]), new RegExp(`the arguments were ${original} characters of JSON; the chat log keeps at most ${MAX_LOGGED_ARGUMENTS_CHARS}`));
    assert.equal(String(cut?.head).length, 2048);
  }
  assert.deepEqual(small, { path: 'big.md' }, 'small arguments are kept whole');
  const finished = events.flatMap((e) => (e.event.type === 'tool.finished' ? [e.event] : []));
  assert.equal(finished[1]?.error?.code, 'KW_ERR_VAULT_TOO_LARGE');
  // The model's answers are recorded with the same bound.
  const asked = events.flatMap((e) => (e.event.type === 'model.finished' ? e.event.response.toolCalls : []));
  assert.deepEqual(asked.map((c) => typeof c.arguments.original_chars), ['number', 'number', 'undefined']);
  const logChars = events.reduce((n, e) => n + JSON.stringify(e.event).length, 0);
  assert.ok(logChars < 300_000, `the log holds ${logChars} characters (the 200 KB note's read result is in it; not 2 MiB of arguments)`);
});
