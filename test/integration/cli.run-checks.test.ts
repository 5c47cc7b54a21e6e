/**
 * `kowalski run` refuses a doomed run before it exists (exit 2, no run): a folder that is
 * not there (a relative answer is read from where the command was typed), a model step
 * with no model configured (naming config.toml and the app's Setup), a provider that does
 * not answer; `--skip-model-check` starts anyway; a model that is there starts at once.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO, cli, cliSandbox, outputOf, stdoutJson, writeHorde } from '../../testkit/cli.js';
import type { RunJson } from '../../testkit/cli.js';
import { refusedUrl, startFakeOllama } from '../../testkit/fake-models.js';
import { cleanups } from '../../testkit/cleanup.js';

/** A model step's run takes seconds on a loaded machine (its thread loads the model layer): a guard, not a wait. */
const SLOW = { limitMs: 150_000 };

const runsOf = (home: string): string[] => (fs.existsSync(path.join(home, 'runs')) ? fs.readdirSync(path.join(home, 'runs')) : []);

/** A horde with one model step (`think`, the default model) after a noop-like verify. */
function writeAsker(home: string): void {
  writeHorde(path.join(home, 'hordes', 'asker'), 'id = "asker"\npipeline = ["think"]', { think: 'kind = "process"' });
}

describe('kowalski run: checks before a run exists', { concurrency: true }, () => {
  it('project-check with a folder that does not exist: exit 2 naming the input and the folder; a relative answer is read from the cwd', async (t) => {
    const { root, home } = cliSandbox(t);
    const missing = path.join(root, 'my-app');
    const r = await cli(home, ['run', 'project-check', '--input', `project=${missing}`]);
    assert.equal(r.code, 2, outputOf(r));
    assert.ok(r.stderr.includes(`"project" (Project folder (checked where it is, not copied)): ${missing} does not exist (a folder is wanted)`), r.stderr);
    assert.match(r.stderr, /\[KW_ERR_INPUT_INVALID\]\n$/);
    const relative = await cli(home, ['run', 'project-check', '--input', 'project=no-such-app', '--json']);
    assert.equal(relative.code, 2, outputOf(relative));
    const err = stdoutJson<{ error: { code: string; message: string; where: { key: string } } }>(relative).error;
    assert.equal(err.code, 'KW_ERR_INPUT_INVALID');
    assert.ok(err.message.includes(`${path.join(REPO, 'no-such-app')} does not exist`), err.message);
    assert.equal(err.where.key, 'inputs.project');
    assert.deepEqual(runsOf(home), [], 'no run was created');
  });

  it('a model step with no model configured: exit 2 naming config.toml and Setup; nothing starts', async (t) => {
    const { home } = cliSandbox(t);
    writeAsker(home);
    const r = await cli(home, ['run', 'asker']);
    assert.equal(r.code, 2, outputOf(r));
    assert.match(r.stderr, /asker cannot start: step `think` of asker needs a model, and none is configured: choose one in the app's Setup screen, or set default = "provider:model" under \[model\] in \S+config\.toml/);
    assert.match(r.stderr, /\[KW_ERR_MODEL_NOT_READY\]\n$/);
    assert.deepEqual(runsOf(home), []);
  });

  it('an Ollama that does not answer: exit 2 naming the host; --skip-model-check starts the run anyway (and its step fails there)', async (t) => {
    const { home } = cliSandbox(t);
    writeAsker(home);
    fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\nmax_retries = 0\n[providers.ollama]\nhost = "${await refusedUrl()}"\n`);
    const r = await cli(home, ['run', 'asker']);
    assert.equal(r.code, 2, outputOf(r));
    assert.match(r.stderr, /step `think` uses ollama:qwen2\.5:7b: Ollama at http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\): is `ollama serve` running\?/);
    assert.deepEqual(runsOf(home), []);
    const forced = await cli(home, ['run', 'asker', '--skip-model-check', '--json'], SLOW);
    assert.equal(forced.code, 1, outputOf(forced));
    assert.equal(stdoutJson<RunJson>(forced).state, 'failed');
    assert.equal(runsOf(home).length, 1);
  });

  it('a model that is there: the run starts and succeeds', async (t) => {
    const { home } = cliSandbox(t);
    writeAsker(home);
    const ollama = await startFakeOllama([{ text: 'thought about it' }]);
    cleanups(t)(() => ollama.close());
    fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${ollama.url}"\n`);
    const r = await cli(home, ['run', 'asker', '--json'], SLOW);
    assert.equal(r.code, 0, outputOf(r));
    assert.equal(stdoutJson<RunJson>(r).state, 'succeeded');
    assert.deepEqual(ollama.requests.map((q) => q.path), ['/api/tags', '/api/chat'], 'checked once, then called');
  });
});
