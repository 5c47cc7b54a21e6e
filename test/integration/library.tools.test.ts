/**
 * A program's own tool, registered through the library (`registerTool`): a chat agent
 * whose profile lists it and a horde's model step that lists it call it, against a
 * scripted fake Ollama; each call is in the traces; bad definitions and taken names are
 * refused with a code; unregistering takes it away.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openKowalski } from '../../lib/index.js';
import type { UserToolContext } from '../../lib/index.js';
import { profile, writeTeam } from '../../testkit/chat.js';
import { writeHorde } from '../../testkit/cli.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeTurn } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

const PRICE = {
  name: 'lookup_price',
  description: 'The price of an item in the shop, in euros.',
  input: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'], additionalProperties: false },
};

/** Any agent or step offered lookup_price calls it once, then answers with what it said. */
const script = (body: any): FakeTurn => {
  const last = body.messages.at(-1);
  if (last.role === 'tool') return { text: `The tool said ${last.content}.` };
  const offered = (body.tools ?? []).map((t: any) => t.function?.name);
  return offered.includes('lookup_price') ? { toolCalls: [{ name: 'lookup_price', arguments: { item: 'apples' } }] } : { text: 'No tool.' };
};

test('registerTool: a chat agent and a horde model step call the program\'s tool, traced; bad definitions are refused; unregistering removes it', async (t) => {
  const server = await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const data = tempDir(t, 'kw-lib-tools-');
  writeTeam(data, { clerk: profile('clerk', 'tools = ["lookup_price"]') });
  const k = await openKowalski({ dataDir: data, config: `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n` });
  cleanups(t)(() => k.close());
  // Before the tool exists, the profile that lists it does not load.
  assert.ok(!k.agents().some((a) => a.name === 'clerk'));
  assert.ok(k.engine.team.catalog().problems.some((p) => p.code === 'KW_ERR_TOOL_UNKNOWN' && p.file.endsWith('clerk.md')));

  const calls: Array<{ input: Record<string, unknown>; chat: UserToolContext['chat'] }> = [];
  const unregister = k.registerTool({ ...PRICE, run: async (input, context) => {
    calls.push({ input, chat: context.chat });
    return { item: input.item, price: 3 };
  } });
  assert.deepEqual(k.agents().find((a) => a.name === 'clerk')?.tools, ['lookup_price'], 'the profile that lists it loads');

  // A chat agent calls it.
  const answer = await k.chat('clerk', 'How much are apples?');
  assert.equal(answer.stop, 'done', JSON.stringify(answer.error));
  assert.equal(answer.text, 'The tool said {"item":"apples","price":3}.');
  assert.deepEqual(answer.toolCalls.map((c) => [c.kind, c.kind === 'tool' ? c.name : '', c.status]), [['tool', 'lookup_price', 'done']]);
  assert.deepEqual(calls, [{ input: { item: 'apples' }, chat: { sessionId: answer.sessionId, agent: 'clerk' } }]);
  const chatTraces = k.engine.listTraces({ sessionId: answer.sessionId, limit: 10 }).reverse();
  assert.deepEqual(k.engine.getTrace(chatTraces[0]!.id).tools, ['lookup_price']);
  assert.deepEqual(k.engine.getTrace(chatTraces[0]!.id).calls.map((c) => [c.name, c.arguments, c.result]), [['lookup_price', { item: 'apples' }, '{"item":"apples","price":3}']]);

  // A horde's model step calls it.
  const horde = writeHorde(path.join(data, 'hordes', 'shop'), 'id = "shop"\npipeline = ["ask"]', { ask: 'kind = "process"\nprompt_file = "prompts/ask.md"\ntools = ["lookup_price"]' });
  fs.mkdirSync(path.join(horde, 'prompts'));
  fs.writeFileSync(path.join(horde, 'prompts', 'ask.md'), 'Find the price of apples.');
  const runId = await k.startRun(horde);
  assert.equal(await k.waitForRun(runId), 'succeeded', JSON.stringify(k.engine.getRun(runId).steps));
  assert.deepEqual(calls.at(-1), { input: { item: 'apples' }, chat: undefined }, 'a step is no chat');
  const runTraces = k.engine.listTraces({ runId, limit: 10 }).reverse();
  assert.deepEqual(runTraces.map((x) => x.toolCalls), [1, 0]);
  assert.deepEqual(k.engine.getTrace(runTraces[0]!.id).calls.map((c) => [c.name, c.result]), [['lookup_price', '{"item":"apples","price":3}']]);
  assert.match(fs.readFileSync(path.join(k.engine.getRun(runId).workdir, 'ask.md'), 'utf8'), /"price":3/);

  // Refused: bad names, a taken name, schemas that are not an object's or do not compile; nothing changes.
  const run = (): string => 'x';
  for (const name of ['Lookup', 'two__parts', 'a-b', '', 'x'.repeat(65)]) {
    assert.throws(() => k.registerTool({ ...PRICE, name, run }), { code: 'KW_ERR_TOOL_INVALID', message: /the name must be lowercase/ }, name);
  }
  for (const name of ['lookup_price', 'read_file', 'delegate_to_agent', 'query_sql']) {
    assert.throws(() => k.registerTool({ ...PRICE, name, run }), { code: 'KW_ERR_TOOL_NAME_TAKEN', message: new RegExp(`a tool named ${name} exists already`) }, name);
  }
  assert.throws(() => k.registerTool({ ...PRICE, name: 'p2', input: { type: 'string' }, run }), { code: 'KW_ERR_TOOL_INVALID', message: /must be a JSON schema of an object/ });
  assert.throws(() => k.registerTool({ ...PRICE, name: 'p2', input: { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { $ref: '#/$defs/a' } } }, run }),
    { code: 'KW_ERR_TOOL_INVALID', message: /has a \$ref loop/ });
  assert.throws(() => k.registerTool({ ...PRICE, name: 'p2', description: ' ', run }), { code: 'KW_ERR_TOOL_INVALID', message: /needs a description/ });

  // Unregistered: the profile no longer checks, a step that lists it cannot describe it, and the name is free again.
  unregister();
  unregister(); // twice is harmless
  assert.equal(k.unregisterTool('lookup_price'), false);
  assert.ok(k.engine.team.catalog().problems.some((p) => p.code === 'KW_ERR_TOOL_UNKNOWN' && p.file.endsWith('clerk.md')));
  const gone = await k.startRun(horde);
  assert.equal(await k.waitForRun(gone), 'failed');
  assert.match(JSON.stringify(k.engine.getRun(gone).steps), /KW_ERR_TOOL_UNKNOWN/);
  const again = k.registerTool({ ...PRICE, run: () => 'four euros' });
  assert.equal(k.unregisterTool('lookup_price'), true);
  again(); // the tool it removed is gone already: nothing happens
});
