/**
 * `kowalski store copy` and `kowalski migrate` as users run them (the real binary),
 * against a real PostgreSQL cluster: a SQLite data folder with finished, failed, parked
 * and trigger-started runs is copied into Postgres; a node on that database lists the
 * same runs and finishes the parked one after its approval; the Postgres store is copied
 * back into a new data folder, which holds the original rows byte for byte. Refusals: a
 * target that holds rows, a data folder an engine owns, a live node on the source, a
 * source whose run disagrees with its log (rolled back).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import Database from 'better-sqlite3';
import type { RunRow } from '../../engine/index.js';
import { MIGRATIONS } from '../../engine/schema/index.js';
import { COPY_TABLES } from '../../engine/store/copy-tables.js';
import { PG_MIGRATIONS } from '../../engine/store/pg/schema/index.js';
import type { CopyRow } from '../../engine/store/copy-tables.js';
import { cli, cliSandbox, outputOf, stdoutJson } from '../../testkit/cli.js';
import { dumpCopiedTables } from '../support/copy-dump.js';
import { testEngine, writeHorde } from '../support/engine.js';
import { freshPostgresUrl, pgQuery, pgTestEngine } from '../support/pg-engine.js';

const HOOKED = `id = "hooked"
pipeline = ["work"]
[[triggers]]
name = "plain"
kind = "webhook"
overlap = "parallel"`;

/** The Postgres schema this build writes: its newest migration. */
const PG_SCHEMA = PG_MIGRATIONS.at(-1)!.version;
/** Every Postgres migration as the CLI names them: `001_init, 002_nodes_leases, …`. */
const PG_APPLIED = PG_MIGRATIONS.map((m) => `${String(m.version).padStart(3, '0')}_${m.name}`).join(', ');
const BY_CLI = { sessionId: null, agent: null, traceId: null, callKey: null, by: 'cli' };

/**
 * What adapters, plugins and the send and mcp_call steps keep (shared on Postgres, migration 9),
 * written into the data folder as their typed queries would: two messages (one with a dedupe
 * key, one failed), a conversation's session, a switch off and on, a grant with its audit, a
 * delivery and a recorded answer of run `runId`, with text that must come back byte for byte.
 */
function addSharedRecords(file: string, runId: string): void {
  const db = new Database(file);
  try {
    const message = db.prepare(`INSERT INTO adapter_messages (adapter, delivery_id, conversation, sender, text, reply_to, state, session_id, turn, answer, reply_attempts, last_error, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const first = Number(message.run('slack', 'Ev1', 'C9:1800000000.000100', 'U2', 'what is due? é ✓', '{"channel":"C9","ts":"1800000000.000100"}', 'replied', 'chat-1', 1, 'Two invoices.', 1, null, 1_800_000_000_000, 1_800_000_000_500).lastInsertRowid);
    message.run('slack', 'Ev2', 'C9:1800000001.000100', 'U3', 'and now?', '{}', 'failed', null, null, null, 0, 'the agent used up its budget', 1_800_000_001_000, 1_800_000_001_000);
    db.prepare('INSERT INTO adapter_dedupe (adapter, key, message_id, created_at) VALUES (?, ?, ?, ?)').run('slack', 'C9:1800000000.000100', first, 1_800_000_000_000);
    db.prepare('INSERT INTO adapter_sessions (adapter, conversation, session_id, created_at) VALUES (?, ?, ?, ?)').run('slack', 'C9:1800000000.000100', 'chat-1', 1_800_000_000_100);
    const sw = db.prepare('INSERT INTO adapter_switches (adapter, enabled, by, at) VALUES (?, ?, ?, ?)');
    sw.run('slack', 0, 'ana', 1_800_000_002_000);
    sw.run('slack', 1, 'ana', 1_800_000_003_000);
    const permissions = '{"fs":{"read":["/srv/docs"]}}';
    db.prepare('INSERT INTO plugin_grants (name, version, permissions_hash, permissions, granted_by, granted_at) VALUES (?, ?, ?, ?, ?, ?)').run('hello', '1.0.0', 'ab'.repeat(32), permissions, 'ana', 1_800_000_004_000);
    const audit = db.prepare('INSERT INTO plugin_grant_audit (name, action, version, permissions_hash, permissions, by, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    audit.run('hello', 'grant', '0.9.0', 'cd'.repeat(32), permissions, 'bo', 1_800_000_003_500);
    audit.run('hello', 'revoke', '0.9.0', 'cd'.repeat(32), permissions, 'bo', 1_800_000_003_600);
    audit.run('hello', 'grant', '1.0.0', 'ab'.repeat(32), permissions, 'ana', 1_800_000_004_000);
    db.prepare(`INSERT INTO step_sends (run_id, step, adapter, target, state, bytes, sha256, message_id, error, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(runId, 'a', 'slack', 'C9', 'sent', 42, 'ef'.repeat(32), '1800000005.000100', null, 1_800_000_005_000, 1_800_000_005_100);
    db.prepare(`INSERT INTO step_calls (run_id, step, attempt, tool, args_sha256, content, structured, from_attempt, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(runId, 'b', 1, 'files__list', '01'.repeat(32), 'three files', '{"files":["a","b","c"]}', null, 1_800_000_006_000);
  } finally {
    db.close();
  }
}

/**
 * A data folder made by a real SQLite engine: runs that succeeded (one after two
 * approvals), one that failed, two started by a webhook trigger (its switch flipped off
 * and on: a trigger_state row), and one parked on an approval.
 */
async function filledHome(t: TestContext, home: string, ran: string): Promise<{ parked: string; runs: RunRow[] }> {
  writeHorde(path.join(home, 'hordes', 'hooked'), HOOKED, { work: 'kind = "noop"' });
  const engine = await testEngine(t, {}, home);
  const resolve = async (dir: string) => (await engine.resolveHorde(dir)).horde;
  const gated = await resolve(writeHorde(path.join(home, 'hordes', 'gated'), 'id = "gated"\npipeline = ["a", "b"]\nconfirm_commands = true', {
    a: `kind = "verify"\nverify_command = ${JSON.stringify(`echo a >> ${ran}`)}`, b: `kind = "verify"\nverify_command = ${JSON.stringify(`echo b >> ${ran}`)}`,
  }));
  const plain = await resolve(writeHorde(path.join(home, 'hordes', 'plain'), 'id = "plain"\npipeline = ["a", "b", "c"]\nconfirm_commands = false', {
    a: 'kind = "noop"', b: 'kind = "verify"\nverify_command = "true"', c: 'kind = "noop"',
  }));
  const failing = await resolve(writeHorde(path.join(home, 'hordes', 'failing'), 'id = "failing"\npipeline = ["a"]\nconfirm_commands = false', { a: 'kind = "verify"\nverify_command = "false"' }));

  const done = await Promise.all([engine.startRun(plain, {}), engine.startRun(plain, {})]);
  assert.deepEqual(await Promise.all(done.map((id) => engine.waitForRun(id))), ['succeeded', 'succeeded']);
  assert.equal(await engine.waitForRun(await engine.startRun(failing, {})), 'failed');
  const approved = await engine.startRun(gated, {});
  assert.equal(await engine.waitForRun(approved), 'awaiting_input');
  await engine.approve(approved, { step: 'a' });
  assert.equal(await engine.waitForRun(approved), 'awaiting_input');
  await engine.approve(approved, { step: 'b' });
  assert.equal(await engine.waitForRun(approved), 'succeeded');
  await engine.triggers.setEnabled('hooked', 'plain', false);
  await engine.triggers.setEnabled('hooked', 'plain', true);
  const target = await engine.triggers.webhookTarget('hooked', 'plain');
  for (const id of ['d1', 'd2']) {
    const fired = await engine.triggers.webhook(target, { id, payload: '{}', contentType: 'application/json' });
    assert.equal(fired.outcome, 'started');
    if (fired.outcome === 'started') assert.equal(await engine.waitForRun(fired.runId), 'succeeded');
  }
  const parked = await engine.startRun(gated, {});
  assert.equal(await engine.waitForRun(parked), 'awaiting_input');
  // The vault's audit (a create, an append and its revert, which links the two) and a Rookery draft.
  await engine.vault.create('notes/a.md', '# A\n', BY_CLI);
  const appended = await engine.vault.append('notes/a.md', 'more\n', BY_CLI);
  await engine.vault.revert(appended.writeId, 'cli');
  await engine.rookery.create();
  const runs = engine.listRuns({ limit: 100 });
  await engine.close();
  assert.deepEqual(fs.readFileSync(ran, 'utf8').split('\n').filter(Boolean), ['a', 'b']);
  return { parked, runs };
}

/** A chat session with its log, an agent step's session, two traces (one priced: a REAL that must come back exact) and a learned tool-calling mode. */
function chatRows(file: string): void {
  const db = new Database(file);
  try {
    const event = db.prepare('INSERT INTO chat_events (session_id, seq, type, v, at, data) VALUES (?, ?, ?, 1, ?, ?)');
    event.run('cchat1', 1, 'session.created', 1764921600000, '{"agent":"assistant","title":"tea","by":"cli"}');
    event.run('cchat1', 2, 'turn.started', 1764921600001, '{"turn":1,"text":"tea?","agent":{"name":"assistant"}}');
    event.run('cchat1', 3, 'turn.finished', 1764921600002, '{"turn":1,"text":"Oolong, at four.","stop":"done"}');
    db.prepare(`INSERT INTO chat_sessions (id, agent, title, state, turns, last_stop, budget_limit, budget_used, input_tokens, output_tokens, model_calls, created_at, updated_at, last_seq)
      VALUES ('cchat1', 'assistant', 'tea', 'idle', 1, 'done', 8, 1, 3000000000, 12, 1, 1764921600000, 1764921600002, 3)`).run();
    db.prepare("INSERT INTO step_sessions (session_id, run_id, step, agent, created_at) VALUES ('cstep1', 'r-agent', 'research', 'lead', 1764921600003)").run();
    const trace = db.prepare(`INSERT INTO traces (run_id, step, attempt, seq, provider, model, mode, input_tokens, output_tokens, cost_usd, latency_ms, attempts, tool_calls,
      error_code, error, started_at, data, session_id, parent_id, agent) VALUES (?, 'root', 1, ?, 'anthropic', 'claude', 'native', 10, 5, ?, 40, 1, 0, NULL, NULL, 1764921600004, '{"messages":[]}', 'cchat1', ?, 'assistant')`);
    const first = trace.run('cchat1', 1, 0.000123456789, null).lastInsertRowid;
    trace.run('cchat1', 2, null, first);
    db.prepare("INSERT INTO model_tool_modes (model, mode, learned_at) VALUES ('ollama:qwen2.5:7b', 'text', 1764921600005)").run();
  } finally {
    db.close();
  }
}

describe('kowalski store copy', () => {
  test('SQLite → Postgres → SQLite: every run moves (the parked one stays parked, is approved on Postgres and finishes), and the rows come back byte for byte', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    const { parked, runs } = await filledHome(t, home, ran);
    addSharedRecords(path.join(home, 'kowalski.sqlite'), runs.find((r) => r.id !== parked)!.id);
    chatRows(path.join(home, 'kowalski.sqlite'));
    const original = dumpCopiedTables(path.join(home, 'kowalski.sqlite'));
    assert.equal(runs.length, 7);
    assert.deepEqual(COPY_TABLES.map((c) => c.name).filter((n) => n !== 'watch_hashes' && original[n]!.length === 0), [], 'every table but watch_hashes holds rows');

    const url = await freshPostgresUrl();
    const there = await cli(home, ['store', 'copy', '--from', 'sqlite', '--to', url]);
    assert.equal(there.code, 0, outputOf(there));
    for (const table of COPY_TABLES) {
      assert.match(there.stdout, new RegExp(`^ {2}${table.name} +${original[table.name]!.length}$`, 'm'), `${table.name}'s count is printed`);
    }
    assert.match(there.stdout, /^checked: every table holds as many rows as the source's; 7 runs' events fold to the state their runs row holds$/m);
    assert.ok(there.stdout.includes(`\nmigrated the target first: ${PG_APPLIED}\n`), there.stdout);
    const [leases] = await pgQuery<{ n: number }>(url, 'SELECT count(*)::int AS n FROM run_leases');
    assert.equal(leases!.n, 0, 'leases are not copied');
    // The episodic memory's index is derived: made there from the copied log.
    assert.deepEqual(await pgQuery(url, 'SELECT session_id, turn, agent, user_text, assistant_text FROM chat_recall'),
      [{ session_id: 'cchat1', turn: 1, agent: 'assistant', user_text: 'tea?', assistant_text: 'Oolong, at four.' }]);

    // Again into the same database: refused, and nothing is added.
    const again = await cli(home, ['store', 'copy', '--from', 'sqlite', '--to', url]);
    assert.equal(again.code, 2, outputOf(again));
    assert.match(again.stderr, /is not empty \(events: \d+ rows, runs: 7 rows, .*\); a copy goes only into an empty store\. Nothing was copied\. \[KW_ERR_STORE_COPY_NOT_EMPTY\]/);

    // A node on the copy, in the same data folder (its run folders are there).
    const { engine } = await pgTestEngine(t, { url, dataDir: home });
    assert.deepEqual(engine.listRuns({ limit: 100 }), runs, 'the node lists the same runs');
    assert.equal(engine.getRun(parked).run.state, 'awaiting_input');
    assert.deepEqual(engine.getRun(parked).pending.map((p) => p.step), ['a']);
    assert.deepEqual(engine.vault.writes({}).map((w) => [w.writeId, w.op, w.path, w.reverts, w.revertedBy]), [[3, 'revert', 'notes/a.md', 2, null], [2, 'append', 'notes/a.md', null, 3], [1, 'create', 'notes/a.md', null, null]], 'the node lists the vault\'s writes');
    assert.equal(engine.rookery.list().length, 1, 'and the Rookery\'s draft');

    // While that node owns the data folder and beats its heartbeat: both kinds of source are refused.
    const locked = await cli(home, ['store', 'copy', '--from', 'sqlite', '--to', await freshPostgresUrl()]);
    assert.equal(locked.code, 2, outputOf(locked));
    assert.match(locked.stderr, /another kowalski engine is using .*\[KW_ERR_DATA_DIR_LOCKED\]/);
    const back = cliSandbox(t).home;
    const live = await cli(back, ['store', 'copy', '--from', url, '--to', 'sqlite']);
    assert.equal(live.code, 2, outputOf(live));
    assert.match(live.stderr, /a kowalski node is using the source .*: node-[0-9a-f]{8} \(.*, pid \d+, holds 0 runs\)\. .*or pass --force\. Nothing was copied\. \[KW_ERR_STORE_COPY_NODES_LIVE\]/);
    assert.equal(fs.existsSync(path.join(back, 'kowalski.sqlite')), false, 'the target was not touched');

    await engine.approve(parked, { step: 'a' });
    assert.equal(await engine.waitForRun(parked), 'awaiting_input');
    await engine.approve(parked, { step: 'b' });
    assert.equal(await engine.waitForRun(parked), 'succeeded');
    assert.deepEqual(fs.readFileSync(ran, 'utf8').split('\n').filter(Boolean), ['a', 'b', 'a', 'b'], 'the parked run ran its commands once, on Postgres');
    const finished = engine.listRuns({ limit: 100 });
    await engine.close();

    const home2 = back;
    const returned = await cli(home2, ['store', 'copy', '--from', url, '--to', 'sqlite', '--json']);
    assert.equal(returned.code, 0, outputOf(returned));
    const report = stdoutJson<{ tables: Array<{ table: string; rows: number }>; runsVerified: number; migrated: { from: string[]; to: string[] } }>(returned);
    assert.equal(report.runsVerified, 7);
    assert.deepEqual(report.migrated.from, []);
    assert.equal(report.migrated.to.length, MIGRATIONS.length, 'the new data folder was migrated first: every migration');
    const fts = new Database(path.join(home2, 'kowalski.sqlite'), { readonly: true });
    try {
      assert.deepEqual(fts.prepare('SELECT session_id, turn, agent, user, assistant FROM chat_fts').all(),
        [{ session_id: 'cchat1', turn: 1, agent: 'assistant', user: 'tea?', assistant: 'Oolong, at four.' }], 'and the index made again from the log');
    } finally {
      fts.close();
    }

    // Row for row: the original, but for what the approval on Postgres added to the parked run.
    const copied = dumpCopiedTables(path.join(home2, 'kowalski.sqlite'));
    const lastSeq = original.runs!.find((r) => r.id === parked)!.last_seq as number;
    for (const table of COPY_TABLES) {
      const mine = (rows: CopyRow[]) => rows.filter((r) => (r.run_id ?? r.id) === parked);
      const others = (rows: CopyRow[]) => rows.filter((r) => (r.run_id ?? r.id) !== parked);
      assert.deepEqual(others(copied[table.name]!), others(original[table.name]!), `${table.name}: every row of the other runs, byte for byte`);
      if (table.name === 'events') {
        assert.deepEqual(mine(copied.events!).filter((e) => (e.seq as number) <= lastSeq), mine(original.events!), 'the parked run\'s log up to its parking is unchanged');
        assert.ok(mine(copied.events!).length > mine(original.events!).length, 'and goes on after it');
      }
    }
    assert.equal(copied.runs!.find((r) => r.id === parked)!.state, 'succeeded');
    assert.deepEqual(copied.approvals!.filter((a) => a.run_id === parked).map((a) => a.state), ['granted', 'granted']);

    // A SQLite engine on the returned folder sees what the Postgres node saw.
    const local = await testEngine(t, {}, home2);
    assert.deepEqual(local.listRuns({ limit: 100 }), finished);
    await local.close();
  });

  test('a run whose row disagrees with its log is not copied: the check rolls the whole copy back', async (t) => {
    const { root, home } = cliSandbox(t);
    await filledHome(t, home, path.join(root, 'ran.log'));
    const db = new Database(path.join(home, 'kowalski.sqlite'));
    const bent = db.prepare("SELECT id FROM runs WHERE state = 'succeeded' ORDER BY id LIMIT 1").pluck().get() as string;
    db.prepare("UPDATE runs SET state = 'failed' WHERE id = ?").run(bent);
    db.close();
    const url = await freshPostgresUrl();
    const refused = await cli(home, ['store', 'copy', '--from', 'sqlite', '--to', url]);
    assert.equal(refused.code, 1, outputOf(refused));
    assert.ok(refused.stderr.includes(`run ${bent} folds to succeeded, but its runs row says failed; nothing was copied (the copy was rolled back) [KW_ERR_STORE_COPY_MISMATCH]`), refused.stderr);
    const [held] = await pgQuery<{ events: number; runs: number }>(url, 'SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM runs)::int AS runs');
    assert.deepEqual(held, { events: 0, runs: 0 });
  });
});

describe('kowalski migrate', () => {
  test('applies what is missing (SQLite, then the configured Postgres store), then has nothing to apply; refused while an engine owns the folder, except --url', async (t) => {
    const { home } = cliSandbox(t);
    const url = await freshPostgresUrl();
    const env = { KOWALSKI_DATABASE_URL: url };
    const first = await cli(home, ['migrate'], { env });
    assert.equal(first.code, 0, outputOf(first));
    const file = path.join(home, 'kowalski.sqlite');
    assert.equal(first.stdout, [
      `SQLite ${file}: applied 001_init, 002_traces, 003_triggers, 004_state_checks, 005_chat, 006_vault_writes, 007_vault_index, 008_chat_recall, 009_rookery_drafts, 010_review_approvals, 011_adapters, 012_plugins, 013_step_sessions, 014_step_sends, 015_step_calls, 016_queued_firings (schema 16)`,
      `PostgreSQL ${new URL(url).host}${new URL(url).pathname}: applied ${PG_APPLIED} (schema ${PG_SCHEMA})`,
    ].join('\n') + '\n');
    const second = await cli(home, ['migrate', '--json'], { env });
    assert.equal(second.code, 0, outputOf(second));
    assert.deepEqual(stdoutJson(second), { stores: [
      { kind: 'sqlite', where: file, applied: [], version: MIGRATIONS.at(-1)!.version },
      { kind: 'postgres', where: `${new URL(url).host}${new URL(url).pathname}`, applied: [], version: PG_SCHEMA },
    ] });

    const engine = await testEngine(t, {}, home);
    const locked = await cli(home, ['migrate']);
    assert.equal(locked.code, 2, outputOf(locked));
    assert.match(locked.stderr, /another kowalski engine is using .*\[KW_ERR_DATA_DIR_LOCKED\]/);
    const only = await cli(home, ['migrate', '--url', url]);
    assert.equal(only.code, 0, outputOf(only));
    assert.match(only.stdout, new RegExp(`^PostgreSQL .*: nothing to apply \\(schema ${PG_SCHEMA}\\)\n$`));
    await engine.close();
  });

  test('nodes migrating one database at once apply each migration once; a database from a newer kowalski is refused with its code', async (t) => {
    const { home } = cliSandbox(t);
    const url = await freshPostgresUrl();
    const both = await Promise.all([cli(home, ['migrate', '--url', url, '--json']), cli(home, ['migrate', '--url', url, '--json'])]);
    for (const r of both) assert.equal(r.code, 0, outputOf(r));
    const applied = both.map((r) => stdoutJson<{ stores: Array<{ applied: unknown[] }> }>(r).stores[0]!.applied.length).sort();
    assert.deepEqual(applied, [0, PG_SCHEMA], 'one applied every migration, the other found nothing to do');
    const recorded = await pgQuery<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(recorded.map((r) => r.version), PG_MIGRATIONS.map((m) => m.version));

    await pgQuery(url, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from_the_future', 0)", [PG_SCHEMA + 1]);
    const newer = await cli(home, ['migrate', '--url', url]);
    assert.equal(newer.code, 1, outputOf(newer));
    assert.match(newer.stderr, new RegExp(`was written by a newer kowalski \\(schema ${PG_SCHEMA + 1}; this one knows ${PG_SCHEMA}\\)\\. Upgrade kowalski; nothing was changed\\. \\[KW_ERR_STORE_TOO_NEW\\]`));
    assert.equal(fs.existsSync(path.join(home, 'kowalski.sqlite')), false, '--url leaves the data folder alone');
  });
});
