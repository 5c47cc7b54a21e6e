/**
 * The Rookery tab in a real browser (Debian's chromium through playwright-core) against a real
 * `kowalski serve` child process whose model is a scripted fake Ollama: the builder builds a
 * three-step horde with a loop back while the graph updates beside the conversation; a step is
 * edited by hand; "Create horde" writes it; it runs from Hordes to succeeded. Without a model
 * the tab says so and the direct editor builds and creates a horde alone. Waits are bounded
 * waits on page state, never sleeps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeScript, FakeTurn } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';

const browser = browserForFile();

/** A served data folder (with the fake model when `script` is given); the page is on `#/rookery`. */
async function rookeryScene(t: TestContext, script: FakeScript | undefined): Promise<{ page: Page; url: string; home: string }> {
  const defer = cleanups(t);
  const root = fs.realpathSync(tempDir(t, 'kw-e2e-rookery-'));
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  if (script !== undefined) {
    const model = await startFakeOllama(script);
    defer(() => model.close());
    fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${model.url}"\n`);
  }
  const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  await page.goto(`${server.url}#/rookery`);
  return { page, url: server.url, home };
}

const call = (name: string, args: Record<string, unknown> = {}): FakeTurn => ({ toolCalls: [{ name, arguments: args }] });

/** The builder's calls of its one turn, in order; a request offered no tools is the horde's model step. */
function builder(calls: FakeTurn[]): FakeScript {
  return (body: any) => {
    if (!Array.isArray(body?.tools) || body.tools.length === 0) return { text: 'Forty-two, checked.' };
    const messages: any[] = body.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    return calls[messages.slice(lastUser).filter((m) => m.role === 'assistant').length] ?? { text: 'Done.' };
  };
}

const graphNodes = (page: Page) => testId(page, 'horde-graph').locator('.graph__node');

describe('the Rookery tab', () => {
  test('the builder builds a horde with a loop while the graph updates; a step edited by hand; created; it runs to succeeded', async (t) => {
    const { page, url, home } = await rookeryScene(t, builder([
      call('rookery_set_horde', { id: 'answer-check', display_name: 'Answer and check', description: 'Answers a question, then checks the answer.', confirm_commands: false }),
      call('rookery_set_step', { name: 'ingest', kind: 'ingest', inputs: [{ id: 'question', type: 'text', label: 'Question', required: true }] }),
      call('rookery_set_step', { name: 'work', kind: 'process', prompt_body: 'Answer the question.', context_paths: ['@artifact@'] }),
      call('rookery_set_step', { name: 'check', kind: 'verify', verify_command: 'true' }),
      call('rookery_set_edges', { edges: [{ from: 'ingest', to: 'work' }, { from: 'work', to: 'check' }, { from: 'check', to: 'work', when: 'fail', max_loops: 2 }] }),
      { text: 'Your horde has three steps: collect the question, answer it, check it (back to answering if the check fails, twice at most). Create it when you like.' },
    ]));
    await testId(page, 'rookery-new-chat').click();
    await page.waitForURL(/#\/rookery\/d[0-9a-z]+$/);
    await testId(page, 'chat-empty').waitFor();
    await testId(page, 'draft-stage').filter({ hasText: 'interview' }).waitFor();
    await shot(page, 'rookery-01-new');

    await testId(page, 'chat-input').fill('I want to answer a question and check the answer, trying again when the check fails.');
    await testId(page, 'chat-input').press('Enter');
    await testId(page, 'chat-answer').filter({ hasText: 'Create it when you like' }).waitFor();
    // The graph shows the builder's three steps and the loop back, and the draft validates.
    // The draft is read again (its own request) only after the answer shows: wait for the last tool call's loop back.
    await testId(page, 'horde-graph').filter({ hasText: 'fail' }).waitFor();
    await waitFor(async () => (await page.locator('[data-testid="horde-graph"] .graph__node').count()) === 3, 'the graph to show 3 steps');
    assert.deepEqual(await graphNodes(page).locator('.graph__name').allTextContents(), ['ingest', 'work', 'check']);
    assert.match(await textOf(testId(page, 'horde-graph')), /fail/);
    await testId(page, 'draft-stage').filter({ hasText: 'proposed' }).waitFor();
    await shot(page, 'rookery-02-built');

    // A step edited by hand: the prompt of "work".
    const work = testId(page, 'draft-step-work');
    await testId(work, 'draft-step-prompt').fill('Answer the question in one short line.');
    await testId(work, 'draft-step-save').click();
    const draftId = /#\/rookery\/(d[0-9a-z]+)$/.exec(page.url())![1]!;
    // Saved: the server's answer is what the page shows (bounded wait on the stored draft, not a sleep).
    await waitFor(async () => (await apiJson(url, 'GET', `/api/rookery/drafts/${draftId}`)).json.draft.steps[1].prompt_body === 'Answer the question in one short line.', 'the edited prompt saved');
    assert.equal(await testId(work, 'draft-step-prompt').inputValue(), 'Answer the question in one short line.');

    await testId(page, 'draft-create').click();
    await testId(page, 'draft-born-link').waitFor();
    await testId(page, 'draft-stage').filter({ hasText: 'born' }).waitFor();
    assert.ok(fs.existsSync(path.join(home, 'hordes', 'answer-check', 'prompts', 'work.md')));
    assert.match(fs.readFileSync(path.join(home, 'hordes', 'answer-check', 'prompts', 'work.md'), 'utf8'), /one short line/);
    await shot(page, 'rookery-03-born');

    await testId(page, 'draft-born-link').click();
    await page.waitForURL(/#\/hordes\/answer-check$/);
    await testId(page, 'run-button').click();
    await testId(page, 'input-question').fill('What is six times seven?');
    await testId(page, 'submit-run').click();
    await page.waitForURL(/#\/runs\/r[0-9a-z]+$/);
    await testId(page, 'run-state', '[data-state="succeeded"]').waitFor();
    await shot(page, 'rookery-04-run');
  });

  test('without a model the tab says so, and the direct editor builds and creates a horde alone, a review step included', async (t) => {
    const { page, home } = await rookeryScene(t, undefined);
    await testId(page, 'rookery-no-model').waitFor();
    assert.match(await textOf(testId(page, 'rookery-no-model')), /No model is configured/);
    assert.equal(await testId(page, 'rookery-no-model').locator('a[href="#/setup"]').count(), 1);
    assert.equal(await testId(page, 'rookery-new-chat').isDisabled(), true);

    await testId(page, 'rookery-new-manual').click();
    await page.waitForURL(/#\/rookery\/d[0-9a-z]+$/);
    assert.match(await textOf(testId(page, 'draft-horde-problems')), /id.*the draft has no id/s);
    await testId(page, 'draft-horde-id').fill('by-hand');
    await testId(page, 'draft-horde-display_name').fill('By hand');
    await testId(page, 'draft-horde-save').click();
    await page.getByRole('heading', { level: 1, name: /By hand/ }).waitFor();

    await testId(page, 'draft-new-step-name').fill('intake');
    await testId(page, 'draft-new-step-kind').selectOption('ingest');
    await testId(page, 'draft-new-step-add').click();
    await testId(page, 'draft-step-intake').waitFor();
    await testId(page, 'draft-new-step-name').fill('check');
    await testId(page, 'draft-new-step-kind').selectOption('verify');
    await testId(page, 'draft-new-step-add').click();
    const check = testId(page, 'draft-step-check');
    await check.waitFor();
    // A verify step with no command: the problem is shown at the step, with its key.
    assert.match(await textOf(testId(check, 'draft-step-problems')), /verify_command/);
    await testId(check, 'draft-step-verify').fill('true');
    await testId(check, 'draft-step-save').click();
    await testId(check, 'draft-step-problems').waitFor({ state: 'detached' });
    // A review step: it writes nothing (no output is filled in, none asked for), and the draft stays valid.
    await testId(page, 'draft-new-step-name').fill('approve');
    await testId(page, 'draft-new-step-kind').selectOption('review');
    await testId(page, 'draft-new-step-add').click();
    const approve = testId(page, 'draft-step-approve');
    await testId(approve, 'draft-step-no-output').waitFor();
    assert.equal(await testId(approve, 'draft-step-output').count(), 0);
    assert.equal(await testId(approve, 'draft-step-problems').count(), 0);
    await waitFor(async () => (await page.locator('[data-testid="horde-graph"] .graph__node').count()) === 3, 'the graph to show 3 steps');
    await testId(page, 'draft-stage').filter({ hasText: 'proposed' }).waitFor();
    await shot(page, 'rookery-05-by-hand');

    await testId(page, 'draft-create').click();
    await testId(page, 'draft-born-link').waitFor();
    assert.ok(fs.existsSync(path.join(home, 'hordes', 'by-hand', 'agents', 'check.md')));
    assert.doesNotMatch(fs.readFileSync(path.join(home, 'hordes', 'by-hand', 'agents', 'approve.md'), 'utf8'), /^output/m);
  });
});
