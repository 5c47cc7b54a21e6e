/**
 * The Rookery's builder conversation through the real engine: the built-in `builder` agent
 * (its model the scripted fake Ollama) builds a three-step horde with a loop back by the
 * builder's tools in a real chat session; the draft validates, give_birth writes
 * `<data>/hordes/<id>/`, the catalog has it and it runs to the end (the check fails once,
 * the loop goes back, then it passes). A reply holding a fenced TOML draft becomes the
 * session's draft; a birth asked again answers the same; a horde of the same id that the
 * draft did not write is refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Engine } from '../../engine/index.js';
import { chatSetup } from '../../testkit/chat.js';
import type { FakeTurn } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';

/** The builder's model calls of one turn, in order; a call offered no tools (the horde's model step) gets `answer`. */
function builderScript(calls: FakeTurn[], answer = 'The work is done: 42.') {
  return (body: any): FakeTurn => {
    if (!Array.isArray(body?.tools) || body.tools.length === 0) return { text: answer };
    const messages: any[] = body.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const i = messages.slice(lastUser).filter((m) => m.role === 'assistant').length;
    return calls[i] ?? { status: 500, error: `fake: no call ${i}` };
  };
}

const call = (name: string, args: Record<string, unknown> = {}): FakeTurn => ({ toolCalls: [{ name, arguments: args }] });

function buildCalls(marker: string): FakeTurn[] {
  return [
    call('rookery_example_draft'),
    call('rookery_set_horde', { id: 'fix-loop', display_name: 'Fix loop', description: 'Answers, then checks; a failed check goes back to work.', confirm_commands: false }),
    call('rookery_set_step', { name: 'ingest', kind: 'ingest', inputs: [{ id: 'question', type: 'text', label: 'Question', required: true }] }),
    call('rookery_set_step', { name: 'work', kind: 'process', prompt_body: 'Answer the question in one line.', context_paths: ['@artifact@'] }),
    call('rookery_set_step', { name: 'check', kind: 'verify', verify_command: `[ -f ${marker} ] || { touch ${marker}; exit 1; }` }),
    call('rookery_set_edges', { edges: [{ from: 'ingest', to: 'work' }, { from: 'work', to: 'check' }, { from: 'check', to: 'work', when: 'fail', max_loops: 2 }] }),
    call('rookery_validate_draft'),
    call('rookery_give_birth'),
    { text: 'Your horde fix-loop is in Hordes.' },
  ];
}

/** What the tools answered the model in the last call of the turn. */
const toolAnswers = (requests: Array<{ path: string; body: any }>): string[] =>
  requests.filter((r) => r.path === '/api/chat' && Array.isArray(r.body.tools) && r.body.tools.length > 0).at(-1)!.body.messages
    .filter((m: any) => m.role === 'tool').map((m: any) => String(m.content));

async function runToEnd(engine: Engine, id: string, input: Record<string, string>) {
  const { horde } = await engine.resolveHorde(id);
  const runId = await engine.startRun(horde, input);
  return { runId, state: await engine.waitForRun(runId) };
}

test('the builder builds a three-step horde with a loop back by its tools; it validates, is born into <data>/hordes/, is in the catalog and runs', async (t) => {
  const marker = path.join(tempDir(t, 'kw-rookery-marker-'), 'once');
  const s = await chatSetup(t, builderScript(buildCalls(marker)), {});
  const session = s.engine.chat.create({ agent: 'builder' });
  const out = await s.engine.chat.send(session.id, 'I want a loop: answer a question, check it, try again if the check fails.').done;
  assert.equal(out.stop, 'done', JSON.stringify(out));

  // The builder was offered exactly its eight tools.
  const offered = s.server.requests.find((r) => r.path === '/api/chat')!.body.tools.map((tool: any) => tool.function.name);
  assert.deepEqual(offered.sort(), ['rookery_example_draft', 'rookery_get_draft', 'rookery_give_birth', 'rookery_remove_step', 'rookery_set_edges', 'rookery_set_horde', 'rookery_set_step', 'rookery_validate_draft']);

  const answers = toolAnswers(s.server.requests);
  assert.match(answers[0]!, /"steps"/, 'the example is a draft as JSON');
  assert.match(answers[2]!, /Steps: ingest \(ingest\)\./);
  assert.match(answers[5]!, /Edges: ingest→work, work→check, check→work fail ×2\./);
  assert.match(answers[6]!, /No problems: ready for rookery_give_birth/);
  assert.match(answers[7]!, /Horde "fix-loop" written to .*; it validates and is in Hordes, ready to run\./);

  const view = await s.engine.rookery.forSession(session.id);
  assert.equal(view.stage, 'born');
  assert.equal(view.ok, true);
  assert.deepEqual(view.draft.steps.map((st) => [st.name, st.kind]), [['ingest', 'ingest'], ['work', 'process'], ['check', 'verify']]);
  assert.equal(view.born?.horde_root, path.join(s.home, 'hordes', 'fix-loop'));
  assert.ok(fs.existsSync(path.join(s.home, 'hordes', 'fix-loop', 'horde.md')));
  assert.ok(fs.existsSync(path.join(s.home, 'hordes', 'fix-loop', 'prompts', 'work.md')));

  const catalog = await s.engine.catalog();
  const entry = catalog.entries.find((e) => e.id === 'fix-loop');
  assert.ok(entry?.result.ok, JSON.stringify(entry));

  const run = await runToEnd(s.engine, 'fix-loop', { question: 'What is six times seven?' });
  assert.equal(run.state, 'succeeded', JSON.stringify(s.engine.getRun(run.runId)));
  const attempts = s.engine.getRun(run.runId).steps.map((st) => [st.name, st.attempt, st.outcome]);
  assert.deepEqual(attempts, [['ingest', 1, 'pass'], ['work', 2, 'pass'], ['check', 2, 'pass']], 'the check failed once and the loop went back to work');
});

test('a repeated give_birth answers the same without writing again; another horde of the same id is refused with KW_ERR_HORDE_EXISTS', async (t) => {
  const marker = path.join(tempDir(t, 'kw-rookery-marker-'), 'once');
  let turn = 0;
  const first = builderScript(buildCalls(marker));
  const second = builderScript([call('rookery_give_birth'), { text: 'Done again.' }]);
  const s = await chatSetup(t, (body) => (turn === 1 ? first(body) : second(body)), {});
  const session = s.engine.chat.create({ agent: 'builder' });
  turn = 1;
  assert.equal((await s.engine.chat.send(session.id, 'build it').done).stop, 'done');
  const born = toolAnswers(s.server.requests)[7];
  // The user asks again in the next turn (or a replayed call asks again): the same answer, not KW_ERR_HORDE_EXISTS.
  turn = 2;
  assert.equal((await s.engine.chat.send(session.id, 'create it again').done).stop, 'done');
  assert.equal(toolAnswers(s.server.requests).at(-1), born, 'the same answer twice');
  const id = s.engine.rookery.idForSession(session.id);
  const horde = path.join(s.home, 'hordes', 'fix-loop', 'horde.md');
  const written = fs.statSync(horde).mtimeMs;
  const again = await s.engine.rookery.birth(id);
  assert.equal(fs.statSync(horde).mtimeMs, written, 'nothing written again');
  assert.equal(again.horde_id, 'fix-loop');

  // A second draft with the same id is not this draft's horde: refused unless overwrite.
  const other = await s.engine.rookery.create();
  await s.engine.rookery.replace(other.id, { ...(await s.engine.rookery.get(id)).draft, description: 'Another one.' });
  await assert.rejects(s.engine.rookery.birth(other.id), (err: any) => err.code === 'KW_ERR_HORDE_EXISTS' && /fix-loop/.test(err.message));
  const replaced = await s.engine.rookery.birth(other.id, { overwrite: true });
  assert.equal(replaced.validate_ok, true);
  assert.match(fs.readFileSync(horde, 'utf8'), /Another one\./);
});

test('a builder reply that prints the draft as a fenced TOML block becomes the session\'s draft', async (t) => {
  const toml = [
    'Here is your horde:',
    '',
    '```toml',
    'id = "url-notes"',
    'display_name = "URL notes"',
    'description = "Summarises a page."',
    'pipeline = ["fetch", "summarise"]',
    '',
    '[[penguins]]',
    'name = "fetch"',
    'kind = "ingest"',
    '',
    '[[penguins]]',
    'name = "summarise"',
    'kind = "process"',
    'prompt_body = "Summarise the page."',
    'output = "HANDOFF.md"',
    '```',
  ].join('\n');
  const s = await chatSetup(t, builderScript([{ text: toml }]), {});
  const session = s.engine.chat.create({ agent: 'builder' });
  assert.equal((await s.engine.chat.send(session.id, 'print the draft').done).stop, 'done');
  const view = await s.engine.rookery.forSession(session.id);
  assert.equal(view.draft.id, 'url-notes');
  assert.deepEqual(view.draft.steps.map((st) => [st.name, st.kind, st.prompt_body]), [['fetch', 'ingest', ''], ['summarise', 'process', 'Summarise the page.']]);
  assert.equal(view.stage, 'proposed', JSON.stringify(view.problems));
  assert.equal(s.engine.rookery.list().find((d) => d.session_id === session.id)?.stage, 'proposed');
});

test('the builder\'s tools answer a bad edit with the problem, and a step removed again (the next turn) is no error', async (t) => {
  let turn = 0;
  const turns = [
    builderScript([call('rookery_set_step', { name: 'work', kind: 'conjure' }), call('rookery_remove_step', { name: 'work' }), call('rookery_set_edges', { edges: [{ from: 'a', to: 'b' }] }), { text: 'ok' }]),
    builderScript([call('rookery_remove_step', { name: 'work' }), { text: 'ok' }]),
  ];
  const s = await chatSetup(t, (body) => turns[turn]!(body), {});
  const session = s.engine.chat.create({ agent: 'builder' });
  const first = await s.engine.chat.send(session.id, 'go').done;
  assert.equal(first.stop, 'done', JSON.stringify(first));
  const answers = toolAnswers(s.server.requests);
  assert.match(answers[0]!, /error in step work, kind: step "work" has kind "conjure", which is not a step kind kowalski knows.*\[KW_ERR_STEP_KIND_UNKNOWN\]/);
  assert.match(answers[0]!, /error, id: the draft has no id/);
  assert.match(answers[1]!, /^Step work removed\./);
  assert.match(answers[2]!, /edges\[0\] names step "a", which the draft does not have/);
  turn = 1;
  assert.equal((await s.engine.chat.send(session.id, 'remove work').done).stop, 'done');
  assert.match(toolAnswers(s.server.requests).at(-1)!, /^There is no step work \(nothing to remove\)\./);
});

test('a draft and its birth outlive a restart: the session finds its draft, and a birth asked again answers the same', async (t) => {
  const marker = path.join(tempDir(t, 'kw-rookery-marker-'), 'once');
  const home = tempDir(t, 'kw-rookery-home-');
  const first = await chatSetup(t, builderScript(buildCalls(marker)), {}, '', home);
  const session = first.engine.chat.create({ agent: 'builder' });
  assert.equal((await first.engine.chat.send(session.id, 'build it').done).stop, 'done');
  const before = await first.engine.rookery.forSession(session.id);
  await first.engine.close();

  const again = await chatSetup(t, builderScript([]), {}, '', home);
  const after = await again.engine.rookery.forSession(session.id);
  assert.deepEqual([after.id, after.stage, after.draft], [before.id, 'born', before.draft]);
  assert.deepEqual(await again.engine.rookery.birth(after.id), before.born);
  assert.deepEqual(again.engine.rookery.list().map((d) => [d.id, d.session_id, d.horde_id, d.stage]), [[before.id, session.id, 'fix-loop', 'born']]);
});

test('the assistant ("every tool") is not offered the Rookery tools: it delegates to the builder, which names them', async (t) => {
  const s = await chatSetup(t, () => ({ text: 'Hello.' }), {});
  const session = s.engine.chat.create({ agent: 'assistant' });
  const out = await s.engine.chat.send(session.id, 'hi').done;
  assert.equal(out.stop, 'done', JSON.stringify(out));
  const offered: string[] = s.server.requests.find((r) => r.path === '/api/chat')!.body.tools.map((tool: any) => tool.function.name);
  assert.ok(offered.includes('delegate_to_agent') && offered.includes('read_note'), offered.join(', '));
  assert.deepEqual(offered.filter((name) => name.startsWith('rookery_')), []);
});
