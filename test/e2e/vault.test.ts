/**
 * The Vault screen in a real browser against a real `kowalski serve` whose model is a
 * scripted fake Ollama: an agent's chat turns create and append a note (audited writes);
 * the screen finds the note by search, opens it rendered, lists the writes with their diff
 * and the model call that asked, reverts the append, and shows the conflict (with its
 * diff) when a note changed by hand since the write is reverted; reverting a create asks
 * first, deletes the note, and the open note then says it is gone; semantic search switched
 * on in Setup embeds the notes and merges both rankings. Waits are bounded waits on page or
 * server state, never sleeps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { profile, writeTeam } from '../../testkit/chat.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';

const browser = browserForFile();

const NOTE = 'projects/acme.md';
const CREATED = '# Acme Ltd\n\nPays invoices late; ask for a deposit.\n';
const APPENDED = 'Prefers email over phone.';

describe('the Vault screen', () => {
  test('search, open, the writes with their diff and model call, revert an append, a refused revert after a human edit, semantic search switched on in Setup, and a revert of the create that asks, deletes and says the note is gone', async (t) => {
    const defer = cleanups(t);
    const root = fs.realpathSync(tempDir(t, 'kw-e2e-vault-'));
    const home = path.join(root, 'home');
    fs.mkdirSync(home, { mode: 0o700 });
    // Each message asks for one write, then the answer.
    const model = await startFakeOllama((body: any) => {
      if (body.input !== undefined) return {}; // an embedding request: the fake's own vectors
      const messages: any[] = body.messages;
      const last = messages.map((m) => m.role).lastIndexOf('user');
      const answered = messages.slice(last).some((m) => m.role === 'tool');
      if (answered) return { text: 'Done.' };
      return /email/.test(messages[last].content)
        ? { toolCalls: [{ name: 'append_note', arguments: { path: NOTE, content: APPENDED } }] }
        : { toolCalls: [{ name: 'create_note', arguments: { path: NOTE, content: CREATED } }] };
    });
    defer(() => model.close());
    writeTeam(home, { scribe: profile('scribe', 'tools = ["create_note", "append_note"]') });
    fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${model.url}"\n`);
    const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));

    // Two turns through the API, as any client would talk to the agent.
    const session = (await apiJson(server.url, 'POST', '/api/chat/sessions', { agent: 'scribe' })).json.id as string;
    for (const [turn, text] of [[1, 'Remember Acme pays late'], [2, 'Also: they prefer email']] as const) {
      assert.equal((await apiJson(server.url, 'POST', `/api/chat/sessions/${session}/messages`, { text })).status, 202);
      await waitFor(async () => {
        const s = (await apiJson(server.url, 'GET', `/api/chat/sessions/${session}`)).json;
        return s.state === 'idle' && s.turns === turn;
      }, `turn ${turn} to end`);
    }
    const file = path.join(home, "vault", NOTE);
    assert.equal(fs.readFileSync(file, 'utf8'), `${CREATED}${APPENDED}`);

    await page.goto(`${server.url}#/vault`);
    await testId(page, `note-link-${NOTE}`).waitFor();
    // The notes and the writes are two requests: wait for the writes' list before counting it.
    const listed = testId(page, 'write-list').first().locator('li.write');
    await listed.nth(1).waitFor();
    assert.equal(await listed.count(), 2);

    // Search finds it by a word of its body, and opens it.
    await testId(page, 'vault-search-input').fill('deposit');
    await testId(page, 'vault-search-go').click();
    await testId(page, `hit-${NOTE}`).click();
    await page.waitForURL(/#\/vault\?note=projects%2Facme\.md$/);
    assert.equal(await textOf(testId(page, 'note-view').locator('h1')), 'Acme Ltd');
    assert.match(await textOf(testId(page, 'note-body')), /Prefers email over phone\./);
    await shot(page, 'vault-01-note');

    // The append's write: its diff, and the model call that asked for it.
    const writes = (await apiJson(server.url, 'GET', '/api/writes')).json.writes as Array<{ writeId: number; op: string; traceId: number }>;
    const append = writes.find((w) => w.op === 'append')!;
    const create = writes.find((w) => w.op === 'create')!;
    const appendRow = testId(page.locator('.vault__writes'), `write-${append.writeId}`);
    await appendRow.locator('.write__summary').click();
    assert.match(await textOf(testId(appendRow, 'write-diff')), /\+Prefers email over phone\./);
    await testId(appendRow, 'write-trace').click();
    await testId(appendRow, 'trace-detail').waitFor();
    await shot(page, 'vault-02-write');

    // Revert the append: the note is back to what the create wrote, and a revert row is listed.
    await testId(appendRow, 'write-revert').click();
    await waitFor(() => fs.readFileSync(file, 'utf8') === CREATED, 'the append to be undone');
    await page.locator('.vault__writes li.write').nth(2).waitFor();
    assert.equal(await page.locator('.vault__writes li.write').count(), 3);
    await testId(page, 'note-body').filter({ hasNotText: 'Prefers email' }).waitFor(); // the open note is read again
    assert.match(await textOf(testId(page.locator('.vault__writes'), 'write-list').locator('li.write').first()), /revert.*app/i, 'the app\'s revert is recorded as by the app');
    await testId(page, 'vault-refresh').click();

    // A human edits the note; reverting the create is refused, with the diff shown.
    fs.appendFileSync(file, 'Edited by hand.\n');
    const createRow = testId(page.locator('.vault__writes'), `write-${create.writeId}`);
    await createRow.locator('.write__summary').click();
    await testId(createRow, 'write-revert').click();
    await testId(createRow, 'revert-confirm').click(); // reverting a create deletes the note: asked first
    const refused = testId(createRow, 'revert-refused');
    assert.match(await textOf(refused), /KW_ERR_VAULT_CONFLICT/);
    assert.match(await textOf(testId(refused, 'revert-conflict-diff')), /\+Edited by hand\./);
    assert.ok(fs.existsSync(file), 'the note is kept');
    await shot(page, 'vault-03-conflict');

    // Semantic search switched on in Setup: the notes are embedded by the fake Ollama, and a search by meaning merges both sides.
    await page.goto(`${server.url}#/setup`);
    await testId(page, 'semantic-enabled').check();
    assert.equal(await testId(page, 'semantic-model').inputValue(), 'ollama:nomic-embed-text');
    await testId(page, 'setup-save').click();
    await testId(page, 'setup-saved').waitFor();
    assert.match(fs.readFileSync(path.join(home, 'config.toml'), 'utf8'), /\[vault\.semantic\]\nenabled = true/);
    await waitFor(async () => {
      const status = (await apiJson(server.url, 'GET', '/api/vault/status')).json.semantic;
      return status.enabled === true && status.chunks > 0 && status.pending === 0;
    }, 'the notes to be embedded');
    assert.ok(model.requests.some((r) => r.path === '/api/embed' && r.body.model === 'nomic-embed-text'), 'embedded by the configured model');
    await page.goto(`${server.url}#/vault`);
    await testId(page, 'vault-search-input').fill('deposit');
    await testId(page, 'vault-search-semantic').check();
    await testId(page, 'vault-search-go').click();
    const hit = testId(page, 'vault-search-results').locator('li').first();
    assert.match(await textOf(hit), /keyword \+ semantic/);
    await shot(page, 'vault-04-semantic');

    // Back as the create wrote it, the note open: reverting the create asks first, deletes it, and
    // the panel then says the note is gone (in words for a person) with no Revert left to press.
    fs.writeFileSync(file, CREATED);
    await page.goto(`${server.url}#/vault?note=${encodeURIComponent(NOTE)}`);
    const noteCreate = testId(testId(page, 'note-view'), `write-${create.writeId}`);
    await noteCreate.locator('.write__summary').click();
    await testId(noteCreate, 'write-revert').click();
    assert.match(await textOf(testId(noteCreate, 'revert-confirm-panel')), /Delete projects\/acme\.md\?.*deletes the note/);
    assert.ok(fs.existsSync(file), 'nothing is deleted before the answer');
    await shot(page, 'vault-05-revert-create');
    await testId(noteCreate, 'revert-confirm').click();
    const gone = testId(page, 'note-gone');
    assert.match(await textOf(gone), /holds no note projects\/acme\.md now/);
    assert.ok(!fs.existsSync(file), 'the note was deleted');
    assert.equal(await testId(page, 'note-view').count(), 0, 'the deleted note is not shown');
    const goneCreate = testId(gone, `write-${create.writeId}`);
    assert.match(await textOf(goneCreate), /reverted by #/);
    await goneCreate.locator('.write__summary').click();
    await testId(goneCreate, 'write-diff').waitFor();
    assert.equal(await testId(goneCreate, 'write-revert').count(), 0, 'a reverted write offers no Revert');
    // Opened again: the same words, none meant for an agent.
    await page.reload();
    assert.doesNotMatch(await textOf(testId(page, 'note-gone')), /list_notes/);
    const api = await apiJson(server.url, 'GET', `/api/vault/note?path=${encodeURIComponent(NOTE)}`);
    assert.equal(api.status, 404);
    assert.doesNotMatch(api.json.error.message, /list_notes/);
  });
  test('Reindex shows a bar while the notes are embedded (the fake embedding server holds its second batch until the bar was seen), then what it did', async (t) => {
    const defer = cleanups(t);
    const root = fs.realpathSync(tempDir(t, 'kw-e2e-reindex-'));
    const home = path.join(root, 'home');
    fs.mkdirSync(path.join(home, 'vault', 'notes'), { recursive: true, mode: 0o700 });
    const NOTES = 100;
    for (let i = 0; i < NOTES; i++) fs.writeFileSync(path.join(home, 'vault', 'notes', `n${String(i).padStart(3, '0')}.md`), `# Note ${i}\n\nThe ${i}th thing to remember.\n`);
    // Once `holding`, the reindex's second batch (64 notes a batch, sent as requests of 32 texts) waits for
    // `release`: the first batch is embedded, the bar moves, and stays there.
    let holding = false;
    let batches = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => { release = resolve; });
    defer(() => release());
    const model = await startFakeOllama((body: any) => {
      if (!holding || !Array.isArray(body.input) || body.input.length < 2) return {};
      batches++;
      return batches === 3 ? { heldUntil: released } : {};
    });
    defer(() => model.close());
    fs.writeFileSync(path.join(home, 'config.toml'), `[providers.ollama]\nhost = "${model.url}"\n[vault.semantic]\nenabled = true\n`);
    const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
    // The server embeds the notes once it starts: that done, only the reindex embeds.
    await waitFor(async () => {
      const status = (await apiJson(server.url, 'GET', '/api/vault/status')).json.semantic;
      return status.chunks === NOTES && status.pending === 0;
    }, 'the notes to be embedded at start');

    await page.goto(`${server.url}#/vault`);
    await testId(page, 'vault-refresh').waitFor();
    holding = true;
    await testId(page, 'vault-reindex').click();
    const bar = testId(page, 'work-progress-vault-reindex');
    await bar.filter({ hasText: 'Embedding notes: 64 of 100' }).waitFor();
    assert.equal(await bar.getAttribute('role'), 'status');
    const progress = bar.locator('progress');
    assert.equal(await progress.getAttribute('max'), '100');
    assert.equal(await progress.getAttribute('value'), '64');
    assert.equal(await testId(page, 'vault-reindex').isDisabled(), true, 'one reindex at a time from here');
    await shot(page, 'vault-05-reindex-bar');

    release();
    const result = testId(page, 'vault-reindex-result');
    await result.waitFor();
    assert.equal(await textOf(result), `Read ${NOTES} notes, embedded ${NOTES} chunks.`);
    await bar.waitFor({ state: 'detached' });
    await shot(page, 'vault-06-reindexed');
  });
});
