/**
 * The operator app in a real browser (Debian's chromium through playwright-core) against a
 * real `kowalski serve` child process: start a built-in horde from its form, park on the
 * exact command, approve or deny, open the artifact; the form's own checks; a server killed
 * with SIGKILL mid-step and started again on the same folder and port, the open page
 * catching up by itself; Setup keeps the key secret; signing in with the one-time link
 * (and what the bare address says); empty states; a model step's calls (against a fake Ollama server), live,
 * opened to their prompt, completion and tool calls. Waits are bounded waits on page state, never sleeps.
 * Screenshots of each screen and key moment go to test/output/screens/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import type { Server } from '../support/browser.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { TEST_TOKEN } from '../support/token.js';

const browser = browserForFile();

interface Scene {
  page: Page;
  server: Server;
  url: string;
  home: string;
  /** A folder for commands to run in. */
  work: string;
  defer: (fn: () => unknown) => void;
}

/**
 * A data folder, a server on it, and a page; all stopped and removed after the test.
 * `prepare` writes into the data folder (config.toml, hordes) before the server starts.
 */
async function scene(t: TestContext, serveArgs: string[] = [], prepare?: (home: string, defer: (fn: () => unknown) => void) => Promise<void>): Promise<Scene> {
  const defer = cleanups(t); // the test's one newest-first stack, tempDir's too: what is made in the folder goes before it
  const root = fs.realpathSync(tempDir(t, 'kw-e2e-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  fs.mkdirSync(work);
  if (prepare !== undefined) {
    fs.mkdirSync(home, { mode: 0o700 });
    await prepare(home, defer);
  }
  const [server, { page, pageErrors }] = await Promise.all([serve(home, defer, serveArgs), openPage(browser(), defer)]);
  // Runs first of the clean-ups (newest first): the page threw nothing all along.
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  return { page, server, url: server.url, home, work, defer };
}

/** The run id of the `#/runs/<id>` page. */
function runIdOf(page: Page): string {
  const m = /#\/runs\/(r[0-9a-z]+)$/.exec(page.url());
  assert.ok(m !== null, `not a run page: ${page.url()}`);
  return m[1]!;
}

async function startRun(url: string, input: Record<string, string>): Promise<string> {
  const res = await apiJson<{ runId: string }>(url, 'POST', '/api/hordes/retry-command/runs', { input });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json.runId;
}

/** A model step's prompt and answer, with tags in them: they must show as text, never as markup. */
const PROMPT = 'Write one note about <b>the marker</b> PROMPT-7.';
const COMPLETION = '# Notes\n\n<img src=x onerror="window.__pwned=1"> **not bold**';

/** A user horde of one `process` step that may call `read_file`. */
function writeTraceHorde(dir: string): void {
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'prompts'));
  fs.writeFileSync(path.join(dir, 'horde.md'), [
    '---', 'id = "trace-demo"', 'display_name = "Trace demo"', 'description = "One model step that calls a tool."', 'pipeline = ["notes"]', '---', '', '# Trace demo', '',
  ].join('\n'));
  fs.writeFileSync(path.join(dir, 'agents', 'notes.md'), [
    '---', 'name = "notes"', 'kind = "process"', 'display_name = "Notes"', 'prompt_file = "prompts/notes.md"', 'tools = ["read_file"]', 'output = "notes.md"', '---', '', 'Writes a note.', '',
  ].join('\n'));
  fs.writeFileSync(path.join(dir, 'prompts', 'notes.md'), `${PROMPT}\n`);
}

const runState = (page: Page, state: string) => testId(page, 'run-state', `[data-state="${state}"]`);
const stepState = (page: Page, step: string, state: string) => testId(page, `step-state-${step}`, `[data-state="${state}"]`);
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

describe('the operator app in a browser', () => {
  test('a built-in horde starts from its form, parks on the exact command, runs only once approved; its artifact and its row show', async (t) => {
    const { page, url, work } = await scene(t);
    const command = 'echo hello-from-e2e > proof.txt && echo wrote proof.txt';
    const proof = path.join(work, 'proof.txt');

    await page.goto(url);
    const card = testId(page, 'horde-card-retry-command');
    assert.match(await textOf(card), /Retry a command.*built-in/s);
    await testId(page, 'horde-card-project-check').waitFor();
    // A fresh data folder names no model: the first screen says so and links to Setup.
    const noModel = testId(page, 'no-model');
    await noModel.waitFor();
    assert.match(await textOf(noModel), /^No model is set up yet\. .*Choose a model in Setup/);
    assert.equal(await testId(page, 'no-model-setup').getAttribute('href'), '#/setup');
    await shot(page, '01-hordes');

    await card.getByRole('link', { name: 'Retry a command' }).click();
    await page.waitForURL(/#\/hordes\/retry-command$/);
    await testId(page, 'horde-graph').waitFor();
    assert.match(await textOf(testId(page, 'steps-table')), /sh -c \{\{input\.command\}\}/);
    await shot(page, '02-horde-retry-command');

    await testId(page, 'run-button').click();
    await testId(page, 'input-command').fill(command);
    await testId(page, 'input-cwd').fill(work);
    assert.equal(await testId(page, 'input-delay_secs').inputValue(), '5', 'the default is filled in');
    await shot(page, '03-run-form');
    await testId(page, 'submit-run').click();
    await page.waitForURL(/#\/runs\/r[0-9a-z]+$/);
    const runId = runIdOf(page);

    // Parked: the panel shows exactly what will run, and where; nothing has run yet.
    const panel = testId(page, 'approval-panel', '[data-step="attempt"]');
    await panel.waitFor();
    // verify_command `sh -c {{input.command}}` is itself run by /bin/sh -c, the command quoted into it.
    const quoted = `sh -c '${command}'`;
    assert.deepEqual(await testId(panel, 'approval-argv').locator('li code').allTextContents(), ['/bin/sh', '-c', quoted]);
    const shownCommand = await textOf(testId(panel, 'approval-command'));
    assert.ok(shownCommand.includes('echo hello-from-e2e > proof.txt'), shownCommand);
    assert.equal(shownCommand, `/bin/sh -c '${quoted.replaceAll("'", `'\\''`)}'`);
    assert.equal(await textOf(testId(panel, 'approval-cwd')), work);
    await runState(page, 'awaiting_input').waitFor();
    await stepState(page, 'attempt', 'awaiting_approval').waitFor();
    await stepState(page, 'intake', 'passed').waitFor();
    await testId(page, 'live-indicator', '.live--on').waitFor();
    assert.equal(fs.existsSync(proof), false, 'nothing ran before the approval');
    await shot(page, '04-run-parked');

    await testId(panel, 'approve-button').click();
    await runState(page, 'succeeded').waitFor();
    await testId(page, 'approval-panel').waitFor({ state: 'detached' });
    await stepState(page, 'attempt', 'passed').waitFor();
    await stepState(page, 'backoff', 'pending').waitFor();
    assert.equal(fs.readFileSync(proof, 'utf8'), 'hello-from-e2e\n');
    assert.equal(await textOf(testId(page, 'no-traces')), 'No model calls.');
    await shot(page, '05-run-succeeded');

    // The attempt's artifact, rendered from Markdown: the outcome, the command, its folder, its output.
    // The attempt's report is the delivery (the last artifact of a passed step), shown first; the step keeps it folded.
    assert.equal(await testId(page, 'artifact-attempt').evaluate((el) => el.hasAttribute('open')), false);
    const artifact = testId(page, 'delivery-artifact');
    const md = artifact.locator('.markdown');
    assert.equal(await textOf(md.locator('h1')), 'Verify: Attempt');
    assert.equal(await textOf(md.locator('p strong').first()), 'PASS');
    const shown = await textOf(md);
    for (const s of ['exit 0', `command: ${quoted}`, `cwd: ${work}`, 'attempt: 1', 'wrote proof.txt']) assert.ok(shown.includes(s), `artifact shows "${s}":\n${shown}`);
    assert.match(await textOf(artifact.locator('summary')), /Artifact .*\.md/);
    await shot(artifact, '06-artifact');

    // The Runs screen lists it, started from the app (provenance api).
    await nav(page, 'Runs').click();
    const row = testId(page, `run-row-${runId}`);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    assert.deepEqual(cells.slice(1, 4), [runId, 'retry-command', 'api']);
    await row.locator('[data-state="succeeded"]').waitFor();
    await shot(page, '07-runs');
    const listed = await apiJson(url, 'GET', '/api/runs');
    assert.deepEqual(listed.json.runs.map((r: any) => [r.id, r.state, r.provenance, r.input]), [[runId, 'succeeded', 'api', { command, cwd: work, delay_secs: '5' }]]);
  });

  test('the run form names each missing required answer and starts no run', async (t) => {
    const { page, url } = await scene(t);
    const posts: string[] = [];
    page.on('request', (r) => { if (r.method() !== 'GET') posts.push(`${r.method()} ${r.url()}`); });

    await page.goto(`${url}#/hordes/retry-command`);
    await testId(page, 'run-button').click();
    await testId(page, 'submit-run').click();
    assert.equal(await textOf(page.locator('#input-command-error')), 'Command is required.');
    assert.equal(await textOf(page.locator('#input-cwd-error')), 'Run in folder is required.');
    assert.equal(await testId(page, 'input-command').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'input-command', 'the first wrong field has the focus');
    await shot(page, '12-run-form-errors');

    // Answering one field clears only its error; blanks do not count as an answer.
    await testId(page, 'input-command').fill('true');
    await page.locator('#input-command-error').waitFor({ state: 'detached' });
    await testId(page, 'input-cwd').fill('   ');
    await testId(page, 'submit-run').click();
    assert.equal(await textOf(page.locator('#input-cwd-error')), 'Run in folder is required.');
    assert.match(page.url(), /#\/hordes\/retry-command$/, 'still on the horde');

    assert.deepEqual(posts, [], 'nothing was sent');
    assert.deepEqual((await apiJson(url, 'GET', '/api/runs')).json.runs, []);
  });

  test('denying needs a reason; a denied step fails with it and takes its fail edge; denied again, the run fails; nothing ran', async (t) => {
    const { page, url, work } = await scene(t);
    const proof = path.join(work, 'proof.txt');
    const runId = await startRun(url, { command: 'echo no > proof.txt', cwd: work });
    const reason = 'not on a Friday afternoon';

    await page.goto(`${url}#/runs/${runId}`);
    const attempt = testId(page, 'approval-panel', '[data-step="attempt"]');
    await attempt.waitFor();
    await testId(attempt, 'deny-button').click();
    assert.match(await textOf(attempt.getByRole('alert')), /Write why you deny it/);
    assert.equal(await testId(attempt, 'deny-reason').getAttribute('aria-invalid'), 'true');
    await runState(page, 'awaiting_input').waitFor();

    // Denied, `attempt` fails with the reason, and its fail edge leads to `backoff`, which asks in turn.
    await testId(attempt, 'deny-reason').fill(reason);
    await testId(attempt, 'deny-button').click();
    await stepState(page, 'attempt', 'failed').waitFor();
    const step = await textOf(testId(page, 'step-attempt'));
    assert.ok(step.includes(`denied: ${reason}`) && step.includes('KW_ERR_APPROVAL_DENIED'), step);
    const backoff = testId(page, 'approval-panel', '[data-step="backoff"]');
    await backoff.waitFor();
    await attempt.waitFor({ state: 'detached' });
    await runState(page, 'awaiting_input').waitFor();

    // Denying the pause too (Enter in the reason field) leaves nowhere to go: the run fails, with the reason.
    await testId(backoff, 'deny-reason').fill('stop trying');
    await testId(backoff, 'deny-reason').press('Enter');
    await runState(page, 'failed').waitFor();
    await testId(page, 'approval-panel').waitFor({ state: 'detached' });
    await stepState(page, 'backoff', 'failed').waitFor();
    const error = await textOf(testId(page, 'run-error'));
    assert.ok(error.includes('KW_ERR_APPROVAL_DENIED') && error.includes('stop trying'), error);
    assert.ok((await textOf(testId(page, 'step-attempt'))).includes(`denied: ${reason}`), 'the first reason stays shown');
    assert.equal(fs.existsSync(proof), false, 'the denied command never ran');
    await shot(page, '13-run-denied');

    const view = await apiJson(url, 'GET', `/api/runs/${runId}`);
    assert.deepEqual(view.json.approvals.map((a: any) => [a.step, a.state, a.denyReason]), [['attempt', 'denied', reason], ['backoff', 'denied', 'stop trying']]);
  });

  test('a server killed mid-step and started again on the same folder: the open page catches up, the step runs again as attempt 2 and the run finishes, the recovery notice says so, a parked run stays parked', async (t) => {
    const s = await scene(t);
    const { page, work, home } = s;
    const proof = path.join(work, 'proof.txt');
    const go = path.join(work, 'go');
    // The command runs until the test creates `go`: the kill surely lands while it runs. `>>` shows how often it finished.
    const slow = await startRun(s.url, { command: 'while [ ! -e go ]; do sleep 0.05; done; echo done >> proof.txt', cwd: work });
    const parked = await startRun(s.url, { command: 'echo parked > parked.txt', cwd: work });

    await page.goto(`${s.url}#/runs/${parked}`);
    await testId(page, 'approval-panel', '[data-step="attempt"]').waitFor();

    await page.goto(`${s.url}#/runs/${slow}`);
    const panel = testId(page, 'approval-panel', '[data-step="attempt"]');
    await panel.waitFor();
    await testId(page, 'live-indicator', '.live--on').waitFor();
    await testId(panel, 'approve-button').click();
    await stepState(page, 'attempt', 'running').waitFor();
    await runState(page, 'running').waitFor();

    // kill -9 while the command runs: the page notices the connection is gone.
    s.server.cli.child.kill('SIGKILL');
    const killed = await s.server.cli.exited;
    assert.equal(killed.signal, 'SIGKILL');
    await testId(page, 'socket-down').waitFor();
    await shot(page, '14-server-killed');

    // Started again on the same folder and port, as after a reboot: the open page reconnects and catches up by itself.
    const again = await serve(home, s.defer, [], Number(new URL(s.url).port));
    assert.equal(again.url, s.url);
    await testId(page, 'socket-down').waitFor({ state: 'detached' });
    await testId(page, 'live-indicator', '.live--on').waitFor();
    await page.locator('.error-box', { hasText: 'Could not refresh this run' }).waitFor({ state: 'detached' });
    // The interrupted step runs again as attempt 2 (still waiting for `go`); the notice says what recovery did.
    await testId(page, 'step-attempt', ':has-text("attempt 2")').waitFor();
    await stepState(page, 'attempt', 'running').waitFor();
    const notice = testId(page, 'recovery-notice');
    const said = await textOf(notice);
    assert.match(said, /After the restart: 1 run resumed \(1 step run again\), 1 parked waiting for you/, said);
    await notice.getByRole('link', { name: slow }).waitFor();
    await shot(page, '09-recovery-notice');

    fs.writeFileSync(go, '');
    await runState(page, 'succeeded').waitFor();
    await stepState(page, 'attempt', 'passed').waitFor();
    const step = await textOf(testId(page, 'step-attempt'));
    assert.match(step, /attempt 2/, step);
    assert.match(step, /Earlier: attempt 1 interrupted/, step);
    assert.ok((await textOf(testId(page, 'delivery-artifact').locator('.markdown'))).includes('attempt: 2'));
    assert.equal(fs.readFileSync(proof, 'utf8'), 'done\n', 'the command finished once: the first try was killed at recovery');

    // The other run did not move: still waiting for its approval, its command not run; a fresh load shows the notice too.
    await page.goto(`${again.url}#/runs/${parked}`);
    await page.reload();
    await testId(page, 'approval-panel', '[data-step="attempt"]').waitFor();
    await runState(page, 'awaiting_input').waitFor();
    await notice.waitFor();
    assert.equal(fs.existsSync(path.join(work, 'parked.txt')), false);
    await shot(page, '15-run-still-parked');

    // Dismissed, the notice stays away on reload.
    await notice.getByRole('button', { name: 'Dismiss the recovery notice' }).click();
    await notice.waitFor({ state: 'detached' });
    await page.reload();
    await runState(page, 'awaiting_input').waitFor();
    assert.equal(await notice.count(), 0);
  });

  test('Setup saves an Anthropic key and model, then a Gemini one beside it: only hints come back, config.toml is 0600, a reload never shows the key', async (t) => {
    const { page, url, home } = await scene(t);
    const key = 'sk-ant-api03-e2e-SECRET-0123456789abcdefghijklmnopWXYZ';
    const configFile = path.join(home, 'config.toml');

    await page.goto(`${url}#/setup`);
    await testId(page, 'setup-form').waitFor();
    await shot(page, '08-setup');
    await testId(page, 'provider-anthropic').check();
    await testId(page, 'api-key').fill(key);
    await page.locator('#setup-model').fill('claude-sonnet-4-5');
    await testId(page, 'setup-save').click();

    assert.equal(await textOf(testId(page, 'setup-saved')), `Saved to ${configFile}.`);
    const hint = await textOf(testId(page, 'api-key-hint'));
    assert.ok(hint.endsWith('WXYZ') && hint !== key && !key.includes(hint), `a hint, not the key: ${hint}`);
    assert.equal(await testId(page, 'api-key').inputValue(), '', 'the key field is emptied');
    assert.equal((await page.content()).includes(key), false);
    await shot(page, '11-setup-saved');

    assert.equal(fs.statSync(configFile).mode & 0o777, 0o600);
    const toml = fs.readFileSync(configFile, 'utf8');
    assert.ok(toml.includes(key), toml);
    assert.ok(toml.includes('anthropic:claude-sonnet-4-5'), toml);

    const answer = page.waitForResponse((r) => r.url().endsWith('/api/setup') && r.request().method() === 'GET');
    await page.reload();
    assert.equal((await (await answer).text()).includes(key), false, 'GET /api/setup never carries the key');
    assert.equal(await textOf(testId(page, 'api-key-hint')), hint);
    assert.equal(await testId(page, 'provider-anthropic').isChecked(), true);
    assert.equal(await page.locator('#setup-model').inputValue(), 'claude-sonnet-4-5');
    assert.equal(await testId(page, 'api-key').inputValue(), '');
    assert.equal((await page.content()).includes(key), false, 'the page HTML never holds the key');

    // Gemini beside it: its own key fields, and the Anthropic key stays.
    const geminiKey = 'AIzaSy-e2e-SECRET-0123456789abcdefghijklmnGHIJ';
    await testId(page, 'provider-gemini').check();
    await testId(page, 'gemini-api-key').fill(geminiKey);
    await page.locator('#setup-model').fill('gemini-2.5-flash');
    await testId(page, 'setup-save').click();
    assert.equal(await textOf(testId(page, 'setup-saved')), `Saved to ${configFile}.`);
    assert.ok((await textOf(testId(page, 'gemini-api-key-hint'))).endsWith('GHIJ'));
    const both = fs.readFileSync(configFile, 'utf8');
    assert.ok(both.includes(`[providers.gemini]\napi_key = "${geminiKey}"`) && both.includes(key) && both.includes('default = "gemini:gemini-2.5-flash"'), both);
    assert.equal((await page.content()).includes(geminiKey), false);
  });

  test('Setup checks the model it saves: an Ollama that has it, then one that lacks it, then one chosen from the models it lists; config.toml keeps its comments', async (t) => {
    let ollamaUrl = '';
    const { page, url, home } = await scene(t, [], async (dir, defer) => {
      const ollama = await startFakeOllama([]);
      defer(() => ollama.close());
      ollamaUrl = ollama.url;
      fs.writeFileSync(path.join(dir, 'config.toml'), '# written by hand\n[model]\ntool_calling = "auto" # keep me\n', { mode: 0o600 });
    });
    await page.goto(`${url}#/setup`);
    await testId(page, 'setup-form').waitFor();
    await testId(page, 'provider-ollama').check();
    await page.locator('#setup-ollamaHost').fill(ollamaUrl);
    // An address typed and not saved yet is not asked: the list says to save (not that the old one failed).
    assert.equal(await textOf(testId(page, 'setup-models-pending')), `Save, and the models at ${ollamaUrl} are offered here.`);
    await page.locator('#setup-model').fill('qwen2.5:7b');
    await testId(page, 'setup-save').click();
    const check = testId(page, 'setup-check');
    await check.waitFor();
    assert.equal(await check.getAttribute('data-status'), 'ok');
    assert.equal(await textOf(check), `The model answers. ollama:qwen2.5:7b: Ollama at ${ollamaUrl} has qwen2.5:7b`);
    assert.equal(await testId(page, 'setup-written').count(), 0, 'the comments were kept, so nothing is said of them');

    await page.locator('#setup-model').fill('mistral:7b');
    await testId(page, 'setup-save').click();
    await page.locator('[data-testid="setup-check"][data-status="model_missing"]').waitFor();
    assert.equal(await check.getAttribute('role'), 'alert');
    assert.match(await textOf(check), /^The server does not have the model\. ollama:mistral:7b: .*run `ollama pull mistral:7b`/);
    await shot(page, '12-setup-check');
    const toml = fs.readFileSync(path.join(home, 'config.toml'), 'utf8');
    assert.ok(toml.startsWith('# written by hand\n[model]\ntool_calling = "auto" # keep me\ndefault = "ollama:mistral:7b"\n'), toml);

    // The saved host's models are offered: choosing one fills the field, and it answers.
    const choices = testId(page, 'setup-model-choices');
    await choices.waitFor();
    assert.deepEqual(await choices.locator('option').allTextContents(), ['Choose one of its 2 models…', 'llama3.2:3b', 'qwen2.5:7b']);
    await choices.selectOption('llama3.2:3b');
    assert.equal(await page.locator('#setup-model').inputValue(), 'llama3.2:3b');
    await shot(page, '12b-setup-models');
    await testId(page, 'setup-save').click();
    await page.locator('[data-testid="setup-check"][data-status="ok"]').waitFor();
    assert.ok(fs.readFileSync(path.join(home, 'config.toml'), 'utf8').includes('default = "ollama:llama3.2:3b"'));
    // With a model set up, the first screen has no notice (once it has read the settings).
    const settings = page.waitForResponse((r) => r.url().endsWith('/api/setup') && r.request().method() === 'GET');
    await page.goto(`${url}#/hordes`);
    await settings;
    await testId(page, 'horde-card-retry-command').waitFor();
    assert.equal(await testId(page, 'no-model').count(), 0);
  });

  test('Setup\'s web search: SearXNG, then Brave with its key named as an environment variable, then Staan with a market; a bad or unset name is shown on its field; config.toml keeps its comments', async (t) => {
    const keyVar = 'KW_E2E_BRAVE_KEY';
    const key = 'brave-e2e-SECRET-0123456789';
    process.env[keyVar] = key; // the served child inherits it
    cleanups(t)(() => delete process.env[keyVar]);
    const { page, url, home } = await scene(t, [], async (dir) => {
      fs.writeFileSync(path.join(dir, 'config.toml'), '# written by hand\n[model]\ntool_calling = "auto" # keep me\n', { mode: 0o600 });
    });
    const configFile = path.join(home, 'config.toml');
    await page.goto(`${url}#/setup`);
    await testId(page, 'setup-form').waitFor();
    assert.equal(await testId(page, 'web-search-none').isChecked(), true);

    await testId(page, 'web-search-searxng').check();
    await testId(page, 'setup-save').click();
    assert.match(await textOf(page.locator('#setup-webSearchUrl-error')), /SearXNG needs the address/);
    await testId(page, 'web-search-url').fill('http://127.0.0.1:8888/');
    await testId(page, 'setup-save').click();
    assert.equal(await textOf(testId(page, 'setup-saved')), `Saved to ${configFile}.`);
    assert.equal(fs.readFileSync(configFile, 'utf8'), '# written by hand\n[model]\ntool_calling = "auto" # keep me\n\n[tools.web_search]\nprovider = "searxng"\nurl = "http://127.0.0.1:8888"\n');

    await testId(page, 'web-search-brave').check();
    await testId(page, 'web-search-url').fill('');
    await testId(page, 'web-search-key-env').fill('KW_E2E_NEVER_SET');
    await testId(page, 'setup-save').click();
    assert.match(await textOf(page.locator('#setup-webSearchKeyEnv-error')), /webSearch\.apiKeyEnv: the environment variable KW_E2E_NEVER_SET is not set/);
    await testId(page, 'web-search-key-env').fill(keyVar);
    await testId(page, 'setup-save').click();
    assert.equal(await textOf(testId(page, 'setup-saved')), `Saved to ${configFile}.`);
    assert.match(await textOf(page.locator('#setup-webSearchKeyEnv-hint')), new RegExp(`${keyVar} is set where kowalski runs`));
    await testId(page, 'web-search').scrollIntoViewIfNeeded();
    await shot(page, '16-setup-web-search');
    const toml = fs.readFileSync(configFile, 'utf8');
    assert.equal(toml, `# written by hand\n[model]\ntool_calling = "auto" # keep me\n\n[tools.web_search]\nprovider = "brave"\napi_key_env = "${keyVar}"\n`);
    assert.equal((await page.content()).includes(key), false, 'the key is never on the page');

    // Staan: the same variable, and its market (a bad one is shown on its field before anything is sent).
    await testId(page, 'web-search-staan').check();
    await testId(page, 'web-search-market').fill('French');
    await testId(page, 'setup-save').click();
    assert.match(await textOf(page.locator('#setup-webSearchMarket-error')), /e\.g\. en-us or fr-fr/);
    await testId(page, 'web-search-market').fill('fr-fr');
    await testId(page, 'setup-save').click();
    assert.equal(await textOf(testId(page, 'setup-saved')), `Saved to ${configFile}.`);
    await testId(page, 'web-search').scrollIntoViewIfNeeded();
    await shot(page, '16b-setup-web-search-staan');
    assert.equal(fs.readFileSync(configFile, 'utf8'),
      `# written by hand\n[model]\ntool_calling = "auto" # keep me\n\n[tools.web_search]\nprovider = "staan"\napi_key_env = "${keyVar}"\nmarket = "fr-fr"\n`);
  });

  test('signing in: the bare address says how to get in; the link serve printed signs in, once; a used link says so; a pasted token works too', async (t) => {
    const defer = cleanups(t);
    const home = path.join(fs.realpathSync(tempDir(t, 'kw-e2e-')), 'home');
    const [server, { page, pageErrors }, other] = await Promise.all([
      serve(home, defer), openPage(browser(), defer, { signedIn: false }), openPage(browser(), defer, { signedIn: false }),
    ]);
    defer(() => assert.deepEqual([...pageErrors, ...other.pageErrors], [], 'uncaught exceptions in the pages'));
    assert.match(server.signIn, /\?code=[\w-]{22}$/);

    // The bare address: nothing loads; the page says how to get in.
    await page.goto(server.url);
    const prompt = testId(page, 'token-prompt');
    await prompt.waitFor({ state: 'visible' });
    assert.match(await textOf(prompt.getByRole('heading')), /Sign in to kowalski/);
    assert.match(await textOf(prompt), /run kowalski open: it prints a one-time\s+sign-in link.*<data dir>\/api-token/s);
    assert.equal(await testId(page, 'horde-card-retry-command').count(), 0, 'nothing loads without the token');
    assert.equal(await testId(prompt, 'link-refused').count(), 0);
    await shot(page, '10-sign-in');

    // The link: signed in, the code gone from the address, the websocket up.
    await page.goto(server.signIn);
    await testId(page, 'horde-card-retry-command').waitFor();
    assert.equal(await prompt.isVisible(), false);
    assert.equal(page.url().includes('code='), false, page.url());
    assert.equal(await page.evaluate('localStorage.getItem("kowalski.token")'), TEST_TOKEN);
    await testId(page, 'socket-down').waitFor({ state: 'detached' });
    await page.reload();
    await testId(page, 'horde-card-retry-command').waitFor();
    assert.equal(await prompt.isVisible(), false, 'the token is kept');

    // The same link in another browser: used already.
    await other.page.goto(server.signIn);
    const otherPrompt = testId(other.page, 'token-prompt');
    await otherPrompt.waitFor({ state: 'visible' });
    assert.match(await textOf(testId(otherPrompt, 'link-refused')), /used already or has expired/);
    assert.equal(other.page.url().includes('code='), false, 'a refused code is taken off the address too');
    await shot(other.page, '11-sign-in-link-used');
    await testId(otherPrompt, 'token-input').fill(fs.readFileSync(path.join(home, 'api-token'), 'utf8').trim());
    await otherPrompt.getByRole('button', { name: 'Use this token' }).click();
    await testId(other.page, 'horde-card-retry-command').waitFor();
    await otherPrompt.waitFor({ state: 'hidden' });
    await testId(other.page, 'socket-down').waitFor({ state: 'detached' });
    await shot(other.page, '16-hordes-with-token');
  });

  test('a model step\'s calls show under its steps, live: model, tokens, cost, a failed tool call; a row opens (by keyboard too) to the prompt and the completion, shown as plain text', async (t) => {
    let fakeRequests: unknown[] = [];
    let letSecondEnd = (): void => undefined;
    const secondHeld = new Promise<void>((resolve) => { letSecondEnd = resolve; });
    const { page, url } = await scene(t, [], async (home, defer) => {
      const fake = await startFakeOllama([
        { toolCalls: [{ name: 'read_file', arguments: { path: 'facts.txt' } }], usage: { input: 20, output: 5 } },
        // Held until the page is open and live, so this call is recorded while it watches.
        { text: COMPLETION, usage: { input: 12, output: 34 }, heldUntil: secondHeld },
      ]);
      defer(letSecondEnd);
      defer(() => fake.close());
      fakeRequests = fake.requests;
      fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${fake.url}"\n`, { mode: 0o600 });
      writeTraceHorde(path.join(home, 'hordes', 'trace-demo'));
    });
    const started = await apiJson<{ runId: string }>(url, 'POST', '/api/hordes/trace-demo/runs', { input: {} });
    assert.equal(started.status, 201, JSON.stringify(started.json));
    const runId = started.json.runId;

    await page.goto(`${url}#/runs/${runId}`);
    await testId(page, 'live-indicator', '.live--on').waitFor();
    const row = (seq: number) => testId(page, 'trace-row', `[data-step="notes"][data-attempt="1"][data-seq="${seq}"]`);
    await row(1).waitFor();
    await stepState(page, 'notes', 'running').waitFor();
    assert.equal(await row(2).count(), 0, 'the second call is still streaming');
    letSecondEnd();
    // Recorded while the page is open: the list refreshes from the trace frame, no reload.
    await row(2).waitFor();
    await runState(page, 'succeeded').waitFor();
    await stepState(page, 'notes', 'passed').waitFor();

    const cells = async (seq: number) => (await row(seq).locator('th, td').allTextContents()).map((c) => c.trim());
    const first = await cells(1);
    assert.deepEqual(first, ['▸notes, attempt 1, call 1', '1', '1', 'ollama:qwen2.5:7b', 'native', '20 / 5', '$0', first[7], '1', '—']);
    assert.match(first[7]!, /^\d+(\.\d)? m?s$/, 'a latency');
    const second = await cells(2);
    assert.deepEqual(second.slice(1), ['1', '2', 'ollama:qwen2.5:7b', 'native', '12 / 34', '$0', second[7], '0', '—']);
    assert.match(await textOf(testId(page, 'trace-totals')), /2 calls.*32 tokens in, 39 out.*cost \$0/);
    assert.equal(await testId(page, 'trace-error').count(), 0, 'both provider calls succeeded');

    // The second call, opened from the keyboard: the prompt as sent (the tool's error went back to the model), the completion as text.
    const toggle2 = testId(row(2), 'trace-toggle');
    assert.equal(await toggle2.getAttribute('aria-expanded'), 'false');
    await toggle2.focus();
    await page.keyboard.press('Enter');
    assert.equal(await toggle2.getAttribute('aria-expanded'), 'true');
    const detail2 = page.locator(`#${await toggle2.getAttribute('aria-controls')}`);
    await testId(detail2, 'trace-detail').waitFor();
    const messages = testId(detail2, 'trace-message');
    assert.deepEqual(await messages.evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), ['system', 'user', 'assistant', 'tool']);
    const user = await textOf(messages.nth(1));
    assert.ok(user.includes(PROMPT), `the prompt file is in the prompt, its tags as text:\n${user}`);
    const tool = await textOf(messages.nth(3));
    assert.ok(tool.includes('read_file') && tool.includes('error') && tool.includes('KW_ERR_FILE_ROOT_UNSET'), tool);
    assert.equal(await textOf(testId(detail2, 'trace-completion')), COMPLETION);
    assert.equal(await detail2.locator('b, img, h1, strong').count(), 0, 'no model text became markup');
    await shot(page, '18-run-model-calls');

    // The first call, opened by a click: the tool call, its arguments, and its error, shown as one.
    await testId(row(1), 'trace-toggle').click();
    const call = testId(page, 'trace-call', '[data-tool="read_file"]');
    await call.waitFor();
    assert.deepEqual(JSON.parse(await textOf(testId(call, 'trace-call-arguments'))), { path: 'facts.txt' });
    assert.match(await textOf(testId(call, 'trace-call-error')), /^KW_ERR_FILE_ROOT_UNSET .*tools folder/);
    assert.match(await textOf(testId(call, 'trace-call-result')), /KW_ERR_FILE_ROOT_UNSET/);
    assert.match(await call.getAttribute('class') ?? '', /trace-call--error/);
    assert.equal(await textOf(call.locator('.trace-bad')), 'failed');
    await shot(testId(page, 'traces'), '19-model-call-tool-error');

    // Closed again, from the keyboard: the detail goes.
    await toggle2.press('Space');
    assert.equal(await toggle2.getAttribute('aria-expanded'), 'false');
    await detail2.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate('window.__pwned'), undefined, 'nothing the model wrote ran');
    assert.equal(fakeRequests.length, 2);
  });

  test('a fresh data folder: the Runs screen says there are no runs yet', async (t) => {
    const { page, url } = await scene(t);
    await page.goto(`${url}#/runs`);
    const empty = page.locator('.empty');
    assert.match(await textOf(empty), /No runs yet\. Start one from a horde\./);
    assert.equal(await testId(page, 'runs-table').count(), 0);
    await shot(page, '17-runs-empty');

    await page.goto(`${url}#/runs?status=failed`);
    // Same screen, new filter: until the hash change is handled the old note is still shown, so wait for the filtered one.
    await page.locator('.empty').filter({ hasText: 'No runs match these filters' }).waitFor();
    assert.match(await textOf(page.locator('.empty')), /No runs match these filters/);
  });
});
