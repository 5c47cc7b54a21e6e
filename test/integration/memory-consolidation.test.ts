/**
 * The built-in memory-consolidation horde end to end through the engine, its model a fake
 * Ollama reached by the real `ollama` client: chat turns finished in real sessions; the
 * built-in `archivist` (its own tools only) reads them with `recent_turns`, checks with
 * `recall` and keeps facts with `remember`; the facts land as vault notes under `memory/`
 * with audited writes naming the step's session; a second run reads the new turns but
 * never the first run's step session; its trigger arrives off.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { chatSetup, profile } from '../../testkit/chat.js';
import type { ChatSetup } from '../../testkit/chat.js';
import type { FakeTurn } from '../../testkit/fake-models.js';

const isArchivist = (body: any): boolean => String(body?.messages?.[0]?.content ?? '').startsWith("You are the user's archivist");
/** `kowalski memory consolidate`'s one call. */
const isConsolidation = (body: any): boolean => String(body?.messages?.[0]?.content ?? '').startsWith('You read conversations');

/** The messages of this turn after the step's message: the tools' answers are `tool` messages. */
function thisTurn(body: any): any[] {
  const messages: any[] = body?.messages ?? [];
  return messages.slice(messages.map((m) => m.role).lastIndexOf('user'));
}

/** The archivist: read the turns, recall, keep `facts`, report. */
function archivist(facts: string[], recallQuery: string): (body: any) => FakeTurn {
  return (body) => {
    const i = thisTurn(body).filter((m) => m.role === 'assistant').length;
    if (i === 0) return { toolCalls: [{ name: 'recent_turns', arguments: { since_hours: 24 } }] };
    if (i === 1) return { toolCalls: [{ name: 'recall', arguments: { query: recallQuery } }] };
    if (i === 2 && facts.length > 0) return { toolCalls: facts.map((fact) => ({ name: 'remember', arguments: { fact } })) };
    return { text: `# Report\n\n## Kept\n\n${facts.map((f) => `- ${f}`).join('\n') || 'None.'}\n\n## Already kept\n\nNone.\n\n## Read\n\nThe turns of the day.` };
  };
}

/** The tool answers the archivist was given in its last request, by tool call order. */
function toolAnswers(s: ChatSetup): string[] {
  const last = s.server.requests.filter((r) => r.path === '/api/chat' && isArchivist(r.body)).at(-1)!;
  return thisTurn(last.body).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

async function consolidate(s: ChatSetup): Promise<{ runId: string; sessionId: string; report: string }> {
  const { horde } = await s.engine.resolveHorde('memory-consolidation');
  const runId = await s.engine.startRun(horde, {});
  assert.equal(await s.engine.waitForRun(runId), 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  const run = s.engine.getRun(runId);
  const step = run.steps.find((x) => x.name === 'consolidate')!;
  const [link] = s.engine.chat.stepSessionsOf(runId);
  return { runId, sessionId: link!.sessionId, report: fs.readFileSync(path.join(run.workdir, step.artifact!), 'utf8') };
}

test('memory-consolidation: the archivist reads the finished chat turns, keeps the facts as audited memory notes, and never reads a step session', async (t) => {
  let script = archivist(['The user lives in Gdańsk.'], 'Gdańsk bees');
  // The host keeps one fact itself, during the chat: the archivist is told so and does not keep it again.
  const host = (body: any): FakeTurn => (JSON.stringify(body.messages).includes('keep bees') && !thisTurn(body).some((m) => m.role === 'tool')
    ? { toolCalls: [{ name: 'remember', arguments: { fact: 'The user keeps bees.' } }] } : { text: 'Nice.' });
  const s = await chatSetup(t, (body: any): FakeTurn => (isArchivist(body) ? script(body) : isConsolidation(body) ? { text: '[]' } : host(body)),
    { host: profile('host', 'tools = ["remember"]\nmemories = 0') });
  const a = s.engine.chat.create({ agent: 'host' }).id;
  await s.engine.chat.send(a, 'I live in Gdańsk and keep bees.').done;
  const b = s.engine.chat.create({ agent: 'host' }).id;
  await s.engine.chat.send(b, 'What is the weather like?').done;

  const first = await consolidate(s);
  // The archivist's message held the step's prompt and the window; it had its profile's tools and no others.
  const asked = s.server.requests.filter((r) => r.path === '/api/chat' && isArchivist(r.body));
  assert.equal(asked.length, 4);
  assert.match(JSON.stringify(asked[0]!.body.messages), /since_hours: 24/);
  assert.deepEqual(asked[0]!.body.tools.map((x: any) => x.function.name).sort(), ['recall', 'recent_turns', 'remember']);
  const [read] = toolAnswers(s);
  assert.match(read!, /^2 chat turns finished since .*, oldest first \(the turns of horde steps are left out\):/);
  assert.match(read!, new RegExp(`Session ${a}, turn 1 \\(host\\):\nUser: I live in Gdańsk and keep bees\\.\nAssistant: Nice\\.`));
  assert.match(read!, new RegExp(`Session ${b}, turn 1 \\(host\\)`));
  assert.match(read!, new RegExp(`Facts already kept with remember in these sessions \\(do not keep them again\\):\n- The user keeps bees\\. \\(memory/\\d{4}-\\d\\d-\\d\\d-the-user-keeps-bees\\.md, session ${a}\\)\n\nThat is all of them\\.$`));

  // The facts are notes under memory/, written through the audited vault by the step's session.
  const day = new Date().toISOString().slice(0, 10);
  assert.equal(fs.readFileSync(path.join(s.home, 'vault', 'memory', `${day}-the-user-lives-in-gdansk.md`), 'utf8'), '# The user lives in Gdańsk.\n\nThe user lives in Gdańsk.\n');
  assert.equal(fs.readFileSync(path.join(s.home, 'vault', 'memory', `${day}-the-user-keeps-bees.md`), 'utf8'), '# The user keeps bees.\n\nThe user keeps bees.\n');
  const writes = s.engine.vault.writes({});
  assert.deepEqual(writes.map((w) => [w.op, w.path, w.by, w.agent, w.sessionId, w.state]).sort(), [
    ['create', `memory/${day}-the-user-keeps-bees.md`, 'agent', 'host', a, 'done'],
    ['create', `memory/${day}-the-user-lives-in-gdansk.md`, 'agent', 'archivist', first.sessionId, 'done'],
  ]);
  const kept = writes.find((w) => w.agent === 'archivist')!;
  assert.ok(kept.traceId !== null && s.engine.getTrace(kept.traceId).sessionId === first.sessionId, 'the write names the model call that asked');
  // The report is the run's artifact, in the horde's shape.
  assert.match(first.report, /^# Memory consolidation\n\n## Kept\n\n- The user lives in Gdańsk\.\n\n## Already kept\n\nNone\.\n\n## Read\n/);
  assert.equal(s.engine.getRun(first.runId).steps[0]!.summary?.includes('agent archivist, 4 model calls, '), true);

  // A later turn, then a second run: it reads the new turn and not the first run's step session,
  // while recall (its check against keeping a fact twice) finds that first run's report.
  const c = s.engine.chat.create({ agent: 'host' }).id;
  await s.engine.chat.send(c, 'Call me Ola, please.').done;
  script = archivist(['The user wants to be called Ola.'], 'Gdańsk');
  const second = await consolidate(s);
  assert.notEqual(second.sessionId, first.sessionId);
  const [again, recalled] = toolAnswers(s);
  assert.match(again!, /^3 chat turns finished since /);
  assert.match(again!, new RegExp(`Session ${c}, turn 1 \\(host\\):\nUser: Call me Ola, please\\.`));
  assert.ok(!again!.includes(first.sessionId) && !again!.includes('archivist') && !again!.includes('Memory consolidation'), 'no step session is read');
  assert.match(recalled!, new RegExp(`session ${first.sessionId} "memory-consolidation · consolidate", turn 1, .* archivist: `));
  assert.equal(s.engine.vault.writes({}).length, 3);
  assert.equal(s.engine.vault.writes({}).filter((w) => w.sessionId === second.sessionId).map((w) => w.path)[0], `memory/${day}-the-user-wants-to-be-called-ola.md`);

  // `kowalski memory consolidate` reads the same turns: the chat sessions', not the steps'.
  const before = s.server.requests.length;
  const direct = await s.engine.chat.consolidate({ since: 0 });
  assert.equal(direct.turns, 3);
  assert.ok(!JSON.stringify(s.server.requests.slice(before)).includes(first.sessionId));
});

test('memory-consolidation ships its nightly trigger switched off; the window is a choice of hours, others refused', async (t) => {
  const s = await chatSetup(t, () => ({ text: 'unused' }), {});
  const views = await s.engine.triggers.list();
  const nightly = views.find((v) => v.hordeId === 'memory-consolidation');
  assert.equal(nightly?.name, 'nightly');
  assert.equal(nightly?.enabled, false);
  assert.equal(nightly?.nextFireAt, null);
  const { horde } = await s.engine.resolveHorde('memory-consolidation');
  await assert.rejects(s.engine.startRun(horde, { since_hours: '5' }), (err: any) => {
    assert.equal(err.code, 'KW_ERR_INPUT_INVALID');
    assert.match(err.message, /"since_hours" must be one of "6", "12", "24"/);
    return true;
  });
  assert.equal(s.server.requests.length, 0);
});
