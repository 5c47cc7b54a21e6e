/**
 * A re-run that replays model outputs (`--replay-models`), against a fake Ollama that
 * counts its calls: a model call whose request (model, messages, tools) is unchanged is
 * answered from the earlier run's trace — 0 calls, the trace marked replayed — and a step
 * whose prompt changed calls the model — 1 call. A replayed tool call still runs its tool.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeScript } from '../../testkit/fake-models.js';
import { writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

test('--replay-models: an unchanged prompt makes 0 model calls (traces marked replayed), a changed one makes 1', async (t) => {
  const script: FakeScript = (body) => {
    const last = body.messages[body.messages.length - 1];
    if (last.role === 'tool') return { text: `# Draft\n\nThe file said: ${last.content}` };
    if (body.tools !== undefined && body.tools.length > 0) return { toolCalls: [{ name: 'read_file', arguments: { path: 'facts.txt' } }] };
    return { text: `# Final\n\nFrom a prompt of ${JSON.stringify(body.messages[0].content).length} characters.` };
  };
  const server = await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-rerun-models-');
  const files = tempDir(t, 'kw-rerun-files-');
  fs.writeFileSync(path.join(files, 'facts.txt'), 'the sky is green today');
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());

  const write = (dir: string, finalPrompt: string): string => {
    writeHorde(dir, 'id = "drafts"\npipeline = ["intake", "draft", "final"]', {
      intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"',
      draft: 'kind = "process"\nprompt_file = "prompts/draft.md"\ntools = ["read_file"]',
      final: 'kind = "process"\nprompt_file = "prompts/final.md"',
    });
    fs.mkdirSync(path.join(dir, 'prompts'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'prompts', 'draft.md'), 'Read facts.txt and draft a note about the topic.');
    fs.writeFileSync(path.join(dir, 'prompts', 'final.md'), finalPrompt);
    return dir;
  };
  const original = write(path.join(home, 'hordes', 'drafts'), 'Turn the draft into a final note.');
  const old = await engine.startRun((await engine.resolveHorde(original)).horde, { topic: 'sky' });
  assert.equal(await engine.waitForRun(old), 'succeeded', JSON.stringify(engine.getRun(old).steps));
  const chatCalls = (): number => server.requests.filter((r) => r.path === '/api/chat').length;
  assert.equal(chatCalls(), 3, 'draft: a tool call and an answer; final: an answer');
  const oldTraces = engine.listTraces({ runId: old, limit: 10 }).reverse();
  assert.ok(oldTraces.every((x) => !x.replayed));

  // The same horde: every model call is answered from the old run's traces.
  const same = await engine.rerun(old, { from: 'draft', replayModels: true });
  assert.equal(await engine.waitForRun(same), 'succeeded', JSON.stringify(engine.getRun(same).steps));
  assert.equal(chatCalls(), 3, 'no model call was made');
  const traces = engine.listTraces({ runId: same, limit: 10 }).reverse();
  assert.deepEqual(traces.map((x) => `${x.step}:${x.seq}:${x.replayed}:${x.attempts}`), ['draft:1:true:0', 'draft:2:true:0', 'final:1:true:0']);
  assert.deepEqual(traces.map((x) => engine.getTrace(x.id).replayedFrom), oldTraces.map((x) => x.id));
  const toolCall = engine.getTrace(traces[0]!.id).calls[0]!;
  assert.match(toolCall.result, /the sky is green today/, 'the replayed tool call ran its tool');
  const oldDir = engine.getRun(old).workdir;
  const newDir = engine.getRun(same).workdir;
  for (const f of ['draft.md', 'final.md']) assert.equal(fs.readFileSync(path.join(newDir, f), 'utf8'), fs.readFileSync(path.join(oldDir, f), 'utf8'));

  // An edited final prompt: draft is replayed, final asks the model.
  const edited = write(path.join(files, 'edited'), 'Turn the draft into a final note, in one line.');
  const changed = await engine.rerun(old, { from: 'draft', replayModels: true, horde: (await engine.resolveHorde(edited)).horde });
  assert.equal(await engine.waitForRun(changed), 'succeeded', JSON.stringify(engine.getRun(changed).steps));
  assert.equal(chatCalls(), 4, 'one model call: the changed prompt');
  const last = server.requests.at(-1)!.body;
  assert.match(last.messages.map((m: { content: string }) => m.content).join('\n'), /in one line/);
  assert.deepEqual(engine.listTraces({ runId: changed, limit: 10 }).reverse().map((x) => `${x.step}:${x.replayed}`), ['draft:true', 'draft:true', 'final:false']);

  // Without --replay-models every model step calls the model again.
  const plain = await engine.rerun(old, { from: 'draft' });
  assert.equal(await engine.waitForRun(plain), 'succeeded');
  assert.equal(chatCalls(), 7);
});
