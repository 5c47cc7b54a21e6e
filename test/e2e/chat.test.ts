/**
 * The Chat screen in a real browser (Debian's chromium through playwright-core) against a
 * real `kowalski serve` child process whose model is a scripted fake Ollama: an answer
 * streams in token by token; a coordinator's two delegations show inline with their
 * answers and as the trace tree's children of its call; a reload mid-stream shows the turn
 * still working, then its answer; a turn stopped by its budget offers more, and granting
 * it finishes the same turn; a failed turn shows its error once. Waits are bounded waits on page state, never sleeps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { writeHorde } from '../support/engine.js';
import { perAgent, profile, writeTeam } from '../../testkit/chat.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeScript } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

/** A served data folder whose team has `profiles` and whose model is the fake; the page is on `#/chat`. */
async function chatScene(t: TestContext, script: FakeScript, profiles: Record<string, string>, prepare?: (home: string) => void): Promise<Page> {
  const defer = cleanups(t); // the test's one newest-first stack, tempDir's too: what is made in the folder goes before it
  const root = fs.realpathSync(tempDir(t, 'kw-e2e-chat-'));
  const home = path.join(root, 'home');
  const files = path.join(root, 'files');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.mkdirSync(files);
  const model = await startFakeOllama(script);
  defer(() => model.close());
  writeTeam(home, profiles);
  prepare?.(home);
  fs.writeFileSync(path.join(home, 'config.toml'),
    `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${model.url}"\n[tools]\nroot = "${files}"\n`);
  const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  await page.goto(`${server.url}#/chat`);
  return page;
}

/** "New chat" with `agent` picked, then `text` sent with Enter. */
async function startChat(page: Page, agent: string, text: string): Promise<void> {
  await testId(page, 'chat-agent').selectOption(agent);
  await testId(page, 'chat-start').click();
  await page.waitForURL(/#\/chat\/c[0-9a-z]+$/);
  await testId(page, 'chat-empty').waitFor();
  await testId(page, 'chat-input').fill(text);
  await testId(page, 'chat-input').press('Enter');
}

/** Records every text the live answer shows, from now on (a MutationObserver in the page; the test's code is not the page's, hence a string). */
async function recordLiveAnswer(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const seen = [];
    window.seenAnswers = seen;
    new MutationObserver(() => {
      const text = (document.querySelector('[data-testid="chat-answer-live"]')?.textContent ?? '').trim();
      if (text !== '' && text !== seen.at(-1)) seen.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}

/** A Markdown block's text (the renderer ends it with a newline). */
const mdText = async (locator: Locator): Promise<string> => (await textOf(locator)).trim();
const seenAnswers = (page: Page): Promise<string[]> => page.evaluate('window.seenAnswers');
const turn = (page: Page, n: number) => testId(page, 'chat-turn', `[data-turn="${n}"]`);
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i + 1}`).join(' ');

describe('the Chat screen', () => {
  test('an answer streams in token by token, then stands as the turn\'s answer; the box is closed meanwhile', async (t) => {
    // The bold word comes as one streamed piece: a half-written `**` would show as text until closed.
    const answer = `Streamed ${words(12, 'word')} **done**.`;
    const page = await chatScene(t, perAgent({ solo: [{ text: answer, chunkDelayMs: 60 }] }), { solo: profile('solo', 'tools = []') });
    await testId(page, 'chat-new').waitFor();
    await shot(page, 'chat-01-sessions');
    await recordLiveAnswer(page);
    await startChat(page, 'solo', 'Stream me an answer');

    await testId(turn(page, 1), 'chat-working').waitFor();
    assert.equal(await testId(page, 'chat-input').isDisabled(), true, 'no second message while the turn runs');
    await testId(turn(page, 1), 'chat-answer-live').waitFor();
    await shot(page, 'chat-02-streaming');
    const final = testId(turn(page, 1), 'chat-answer');
    assert.match(await mdText(final), /^Streamed word1 .* word12 done\.$/);
    assert.equal(await final.locator('strong').textContent(), 'done', 'the answer is rendered as Markdown');

    // The text grew in several frames, each one the last plus more, before the answer stood.
    const seen = await seenAnswers(page);
    assert.ok(seen.length >= 4, `the answer appeared in ${seen.length} frames: ${JSON.stringify(seen)}`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.startsWith(seen[i - 1]!) && seen[i]!.length > seen[i - 1]!.length, `frame ${i} grows the one before: ${JSON.stringify(seen)}`);

    await testId(page, 'chat-state', '[data-state="idle"]').waitFor();
    assert.equal(await testId(page, 'chat-input').isDisabled(), false);
    assert.match(await textOf(testId(turn(page, 1), 'chat-usage')), /1 call, 0 tool calls/);

    // Shift+Enter is a new line, not a send.
    await testId(page, 'chat-input').fill('line one');
    await testId(page, 'chat-input').press('Shift+Enter');
    await testId(page, 'chat-input').press('x');
    assert.equal(await testId(page, 'chat-input').inputValue(), 'line one\nx');
    assert.equal(await testId(page, 'chat-turn').count(), 1);

    await page.goto(page.url().replace(/#.*$/, '#/chat'));
    assert.match(await textOf(testId(page, 'chat-session-row')), /Stream me an answer.*solo.*ready.*1/s);
  });

  test('a coordinator delegating to two agents: both delegations inline with their answers; the trace tree has its call with their calls under it, and a call that only called a tool opens to nothing', async (t) => {
    const page = await chatScene(t, perAgent({
      boss: [
        { toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'alpha', task: 'Find the alpha fact' } }, { name: 'delegate_to_agent', arguments: { agent: 'beta', task: 'Find the beta fact' } }] },
        { text: 'Alpha says A, beta says B.' },
      ],
      alpha: [{ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }, { text: 'The alpha fact is **A**.' }],
      beta: [{ text: 'The beta fact is B.' }],
    }), {
      boss: profile('boss', 'tools = ["delegate_to_agent"]'),
      alpha: profile('alpha', 'tools = ["list_dir"]'),
      beta: profile('beta', 'tools = []'),
    });
    await startChat(page, 'boss', 'Ask alpha and beta');
    const one = turn(page, 1);
    assert.equal(await mdText(testId(one, 'chat-answer')), 'Alpha says A, beta says B.');

    const alpha = testId(one, 'chat-delegation', '[data-agent="alpha"]');
    const beta = testId(one, 'chat-delegation', '[data-agent="beta"]');
    assert.equal(await alpha.getAttribute('data-status'), 'done');
    assert.match(await textOf(alpha), /Find the alpha fact/);
    assert.equal(await mdText(testId(alpha, 'chat-delegation-answer')), 'The alpha fact is A.');
    assert.equal(await mdText(testId(beta, 'chat-delegation-answer')), 'The beta fact is B.');
    // Collapsible: closing a delegation hides its answer.
    await alpha.locator('summary').click();
    assert.equal(await testId(alpha, 'chat-delegation-answer').isVisible(), false);
    await alpha.locator('summary').click();

    await testId(one, 'chat-tree-toggle').click();
    const tree = testId(one, 'trace-tree');
    await tree.waitFor();
    const roots = tree.locator(':scope > ul > [data-testid="trace-node"]');
    await roots.nth(1).waitFor();
    assert.deepEqual(await roots.evaluateAll((els) => els.map((e) => e.getAttribute('data-agent'))), ['boss', 'boss']);
    const first = roots.nth(0);
    assert.match(await textOf(first.locator('.trace-node__row').first()), /boss.*call 1.*ollama:qwen2\.5:7b.*2 tool calls/s);
    assert.match(await textOf(testId(first, 'trace-node-toggle').first()), /show the agents it delegated to/);
    assert.equal(await testId(roots.nth(1), 'trace-node-toggle').count(), 0, 'the answering call delegated nothing');
    await testId(first, 'trace-node-toggle').first().click();
    const children = first.locator(':scope > div > ul > [data-testid="trace-node"]');
    await children.nth(2).waitFor();
    assert.deepEqual((await children.evaluateAll((els) => els.map((e) => e.getAttribute('data-agent')))).sort(), ['alpha', 'alpha', 'beta']);
    const toolOnly = children.filter({ hasText: /1 tool call/ });
    assert.equal(await toolOnly.getAttribute('data-agent'), 'alpha');
    assert.equal(await testId(toolOnly, 'trace-node-toggle').count(), 0, 'a call that only called a tool offers no delegations');
    assert.equal(await tree.locator('[data-failed="true"]').count(), 0);
    await shot(page, 'chat-03-delegations-tree');
  });

  test('a reload mid-stream shows the turn still working, then its final answer', async (t) => {
    const answer = words(40, 'slow');
    const page = await chatScene(t, perAgent({ solo: [{ text: answer, chunkDelayMs: 80 }] }), { solo: profile('solo', 'tools = []') });
    await startChat(page, 'solo', 'Take your time');
    await testId(turn(page, 1), 'chat-answer-live').waitFor();

    await page.reload();
    await testId(turn(page, 1), 'chat-working').waitFor();
    assert.equal(await testId(page, 'chat-state').getAttribute('data-state'), 'running');
    assert.equal(await testId(page, 'chat-input').isDisabled(), true);
    // What streams from here on shows; what streamed before the reload is in the final answer.
    await recordLiveAnswer(page);
    assert.equal(await mdText(testId(turn(page, 1), 'chat-answer')), answer);
    assert.equal(await testId(turn(page, 1), 'chat-working').count(), 0);
    const seen = await seenAnswers(page);
    assert.ok(seen.every((s) => !s.startsWith('slow1 ')), 'tokens streamed before the reload are not sent again');
  });

  test('a turn its budget stopped names what is undone, shows the delegation it cut as stopped (not working), and offers more budget; granting it finishes the same turn', async (t) => {
    const page = await chatScene(t, perAgent({
      boss: [{ toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'helper', task: 'count to three' } }] }, { text: 'Helper counted one two three.' }],
      helper: [{ text: 'one two three' }],
    }), {
      boss: profile('boss', 'tools = ["delegate_to_agent"]\nmax_iterations = 1'),
      helper: profile('helper', 'tools = []'),
    });
    await startChat(page, 'boss', 'Count please');
    const one = turn(page, 1);
    const stop = testId(one, 'chat-budget-stop');
    assert.match(await textOf(stop), /budget of 1 model calls? .*Not finished: boss \(the answer\), helper \("count to three"\)/s);
    await testId(page, 'chat-state', '[data-state="exhausted"]').waitFor();
    const helper = testId(one, 'chat-delegation', '[data-agent="helper"]');
    assert.equal(await helper.getAttribute('data-status'), 'stopped');
    assert.match(await textOf(helper.locator('summary')), /stopped, not finished/);
    assert.doesNotMatch(await textOf(one), /working…/);
    assert.equal(await testId(stop, 'chat-grant-extra').inputValue(), '10');
    await shot(page, 'chat-04-budget-stop');

    await testId(stop, 'chat-grant-button').click();
    assert.equal(await mdText(testId(one, 'chat-answer')), 'Helper counted one two three.');
    assert.equal(await testId(page, 'chat-turn').count(), 1, 'the same turn went on');
    assert.equal(await one.getAttribute('data-stop'), 'done');
    assert.equal(await helper.getAttribute('data-status'), 'done', 'the same delegation went on');
    assert.match(await textOf(one.locator('.chat-usage')), /budget 3 of 11 model calls/);
    await testId(page, 'chat-state', '[data-state="idle"]').waitFor();
  });

  test("an agent step: the Run page shows its delegation tree and links its conversation, which links back to the run", async (t) => {
    const delegate = { name: 'delegate_to_agent', arguments: { agent: 'helper', task: 'count the rows' } };
    const page = await chatScene(t, perAgent({ boss: [{ toolCalls: [delegate] }, { text: '# Count\n\nThere are three rows.' }], helper: [{ text: 'three rows' }] }),
      { boss: profile('boss', 'tools = ["delegate_to_agent"]'), helper: profile('helper', 'tools = []') }, (home) => {
        const dir = path.join(home, 'hordes', 'counted');
        writeHorde(dir, 'id = "counted"\npipeline = ["count"]', { count: 'kind = "agent"\nagent = "boss"\nprompt_file = "prompts/count.md"' });
        fs.mkdirSync(path.join(dir, 'prompts'));
        fs.writeFileSync(path.join(dir, 'prompts', 'count.md'), 'Count the rows.');
      });
    const url = new URL(page.url()).origin;
    const started = await apiJson<{ runId: string }>(url, 'POST', '/api/hordes/counted/runs', { input: {} });
    assert.equal(started.status, 201, JSON.stringify(started.json));
    await page.goto(`${url}/#/runs/${started.json.runId}`);
    await testId(page, 'run-state', '[data-state="succeeded"]').waitFor();
    const section = testId(page, 'agent-turn-count');
    assert.match(await textOf(section), /count · agent boss/);
    const delegation = section.locator('.chat-item-wrap').first();
    assert.match(await textOf(delegation), /helper/);
    assert.match(await textOf(delegation), /done/);
    await shot(page, 'chat-06-agent-step');
    await section.getByRole('link', { name: 'open the conversation' }).click();
    await page.waitForURL(/#\/chat\/cs[0-9a-z]+$/);
    const back = testId(page, 'chat-run-link');
    assert.equal(await textOf(back), started.json.runId);
    await back.click();
    await page.waitForURL(new RegExp(`#/runs/${started.json.runId}$`));
  });

  test('run_horde: the transcript links the run the agent started; the Run page names the agent and links the conversation back', async (t) => {
    const run = { name: 'run_horde', arguments: { horde: 'tally', wait_seconds: 30 } };
    const page = await chatScene(t, perAgent({ boss: [{ toolCalls: [run] }, { text: 'The tally ran.' }] }),
      { boss: profile('boss', 'tools = ["run_horde"]') }, (home) => {
        writeHorde(path.join(home, 'hordes', 'tally'), 'id = "tally"\npipeline = ["count"]\nconfirm_commands = false', { count: 'kind = "verify"\nverify_command = "true"' });
      });
    await startChat(page, 'boss', 'Run the tally');
    const one = turn(page, 1);
    assert.equal(await mdText(testId(one, 'chat-answer')), 'The tally ran.');
    const tool = testId(one, 'chat-tool', '[data-tool="run_horde"]');
    assert.match(await textOf(tool.locator('summary')), /succeeded/);
    const session = page.url();
    await shot(page, 'chat-07-run-horde');
    await testId(tool, 'chat-tool-run').click();
    await page.waitForURL(/#\/runs\/[^/]+$/);
    await testId(page, 'run-state', '[data-state="succeeded"]').waitFor();
    assert.match(await textOf(testId(page, 'provenance-agent')), /agent: boss/);
    await shot(page, 'chat-08-run-asked-by');
    await testId(page, 'run-asked-by').click();
    await page.waitForURL(session);
  });

  test('a turn that fails shows its error once, with its code; the box opens again with the focus back in it', async (t) => {
    const page = await chatScene(t, perAgent({ solo: [{ status: 400, error: 'prompt is too long: 210000 tokens' }] }), { solo: profile('solo', 'tools = []') });
    await startChat(page, 'solo', 'Too long');
    const one = turn(page, 1);
    const error = testId(one, 'chat-error');
    assert.match(await textOf(error), /^KW_ERR_MODEL_REQUEST .*prompt is too long: 210000 tokens/);
    assert.equal(await one.getAttribute('data-stop'), 'error');
    assert.equal((await one.textContent())!.split('prompt is too long').length - 1, 1, 'the error shows once');
    await testId(page, 'chat-state', '[data-state="idle"]').waitFor();
    await page.locator('#chat-message:focus').waitFor();
    assert.equal(await testId(page, 'chat-input').isDisabled(), false);
  });
});
