/**
 * The built-in knowledge-compiler horde end to end through the engine: ingest copies a
 * folder of notes and documents (Markdown, text, a binary diagram) into the run, and the
 * compile step — its model a fake Ollama — reads every file through the run's file tools
 * and writes the compiled note, citing its sources. What the model was given is checked
 * against the fixtures (test/fixtures/knowledge/); its words are the script's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/knowledge/', import.meta.url));
const FILES = ['call-notes.txt', 'meeting-2026-03-02.md', 'specs/diagram.png', 'specs/portal.md'];

const NOTE = `# Acme onboarding portal

Acme's onboarding portal signs in through their Okta tenant; its go-live moved from 30 April to 15 May 2026.

## Dates

- Go-live was planned for 30 April 2026 [meeting-2026-03-02.md], then moved to 15 May 2026 for Acme's security review [call-notes.txt].

## Requirements

- Single sign-on through Acme's Okta tenant [meeting-2026-03-02.md, call-notes.txt, specs/portal.md].
- Uploads of at most 20 MB per file [specs/portal.md].

## Sources

- meeting-2026-03-02.md: the kickoff with Acme
- call-notes.txt: the call of 9 March
- specs/portal.md: the portal's draft spec
`;

test('knowledge-compiler: every file of the folder is read through the run\'s file tools and the note cites them', async (t) => {
  const home = tempDir(t, 'kw-knowledge-');
  const notes = path.join(tempDir(t, 'kw-knowledge-notes-'), 'Acme notes');
  fs.cpSync(FIXTURES, notes, { recursive: true });
  const server = await startFakeOllama((body: { messages: Array<{ role: string }> }) => (body.messages.at(-1)?.role === 'tool'
    ? { text: NOTE }
    : { toolCalls: FILES.map((f) => ({ name: 'read_file', arguments: { path: `inputs/notes/${f}` } })) }));
  cleanups(t)(() => server.close());
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());

  const { horde } = await engine.resolveHorde('knowledge-compiler');
  const topic = 'The Acme onboarding portal';
  const runId = await engine.startRun(horde, { notes, topic });
  const state = await engine.waitForRun(runId);
  assert.equal(state, 'succeeded', JSON.stringify(engine.getRun(runId).steps));

  // The first call is given the instructions, the topic and the list of every file ingest copied.
  assert.equal(server.requests.length, 2);
  const first = server.requests[0]!.body as { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string } }> };
  const prompt = first.messages[1]!.content;
  assert.match(prompt, /cite the files it comes from/);
  assert.ok(prompt.includes(`- topic: ${topic}`));
  for (const f of FILES) assert.ok(prompt.includes(`\`${f}\``), `the file list names ${f}`);
  assert.ok(prompt.includes('copied to `inputs/notes/`'));
  assert.ok(first.tools?.some((x) => x.function.name === 'read_file'), 'the run\'s file tools are offered');

  // The second call holds what read_file answered: each text file whole, the binary one refused.
  const answers = (server.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages.filter((m) => m.role === 'tool').map((m) => m.content);
  assert.equal(answers.length, FILES.length);
  for (const [i, f] of FILES.entries()) {
    if (f.endsWith('.png')) assert.match(answers[i]!, /binary/i, 'the diagram is refused as binary');
    else assert.ok(answers[i]!.includes(fs.readFileSync(path.join(FIXTURES, f), 'utf8').trim()), `read_file gave ${f} whole`);
  }

  // The note is the model's, as written; it cites every text file and lists them under Sources.
  const workdir = engine.getRun(runId).workdir;
  const compiled = fs.readFileSync(path.join(workdir, 'compiled.md'), 'utf8');
  assert.equal(compiled.trim(), NOTE.trim());
  const sources = compiled.slice(compiled.indexOf('## Sources'));
  for (const f of FILES.filter((x) => !x.endsWith('.png'))) assert.ok(sources.includes(`- ${f}:`), `Sources lists ${f}`);
});
