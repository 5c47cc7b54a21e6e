/**
 * The built-in watchlist-digest horde end to end through the engine: ingest copies a
 * watchlist and a CSV of closes (named as a user would name them) into the run, the
 * `compute` step runs the horde's own fixed queries through the data tool (`kowalski mcp
 * serve data`, a child process over MCP), `report` writes the workbook, and the model —
 * a fake Ollama — writes the digest's words. Every number is checked against figures
 * worked out by hand from test/fixtures/watchlist/ (test/support/watchlist-digest.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import readXlsxFile from 'read-excel-file/node';
import type { SqlBatchFile } from '../../agents/index.js';
import { DIGEST, MOVES, POSITIONS, TOTALS, digestSetup, runDigest } from '../support/watchlist-digest.js';

test('watchlist-digest: the positions, the moves past the thresholds and the totals are those worked out by hand; the model writes only the words', async (t) => {
  const s = await digestSetup(t);
  const input = { watchlist: path.join(s.files, 'My watchlist.csv'), prices: path.join(s.files, 'closes.csv') };
  const { state, workdir, runId } = await runDigest(s, input);
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));

  const results = JSON.parse(fs.readFileSync(path.join(workdir, 'results', 'compute.json'), 'utf8')) as SqlBatchFile;
  assert.deepEqual(results.queries.map((q) => q.question), ['Positions', 'Moves past your thresholds', 'Totals']);
  const [positions, moves, totals] = results.queries;
  assert.deepEqual(positions!.columns.map((c) => c.name), ['symbol', 'as_of', 'quantity', 'previous_close', 'close', 'change', 'change_pct', 'position_value', 'day_change']);
  assert.deepEqual(positions!.rows, POSITIONS);
  assert.deepEqual(moves!.columns.map((c) => c.name), ['symbol', 'alert_pct', 'previous_close', 'close', 'change_pct']);
  assert.deepEqual(moves!.rows, MOVES);
  assert.deepEqual(totals!.columns.map((c) => c.name), ['as_of', 'priced', 'without_price', 'total_value', 'previous_value', 'day_change', 'day_change_pct']);
  assert.deepEqual(totals!.rows, TOTALS);
  // The placeholders named the tables the user's file names gave.
  assert.match(positions!.sql, /FROM closes\b/);
  assert.match(positions!.sql, /FROM my_watchlist AS w/);

  // The workbook holds the same numbers, typed as numbers.
  const sheets = await readXlsxFile(path.join(workdir, 'digest.xlsx'));
  assert.equal(sheets.length, 4);
  assert.deepEqual(sheets[3]!.data[1]!.slice(1), TOTALS[0]!.slice(1));

  // One model call, for the digest, given the computed numbers; its words are the handoff.
  assert.equal(s.model.requests.length, 1);
  const prompt = s.model.requests[0]!.body.messages[1].content as string;
  for (const n of ['7932.2', '-57.8', '-0.72', '2.68', '1447.2']) assert.ok(prompt.includes(n), `the digest step was given ${n}`);
  assert.equal(fs.readFileSync(path.join(workdir, 'digest.md'), 'utf8').trim(), DIGEST.trim());

  // The digest, word for word, in the day's note of the vault: an audited write by the run.
  const day = new Date(s.engine.getRun(runId).run.createdAt).toISOString().slice(0, 10);
  const note = `digests/watchlist-${day}.md`;
  const digest = fs.readFileSync(path.join(workdir, 'digest.md'), 'utf8');
  assert.equal(s.engine.vault.read(note).content, digest);
  assert.deepEqual(s.engine.vault.writes({ path: note }).map((w) => [w.op, w.by, w.state, w.sessionId]), [['create', `run:${runId}`, 'done', null]]);
  assert.match(s.engine.getRun(runId).steps.find((x) => x.name === 'file')?.summary ?? '', new RegExp(`created vault note ${note} \\(write #\\d+\\)`));

  // The day's second run adds its digest to the same note.
  const second = await runDigest(s, input);
  assert.equal(second.state, 'succeeded');
  assert.equal(s.engine.vault.read(note).content, `${digest}\n${digest}`);
  assert.deepEqual(s.engine.vault.writes({ path: note }).map((w) => [w.op, w.by]), [['append', `run:${second.runId}`], ['create', `run:${runId}`]]);
});

test('watchlist-digest: a watchlist input that gives two tables fails compute naming them, and the model is never called', async (t) => {
  const s = await digestSetup(t);
  const { state, runId } = await runDigest(s, { watchlist: s.files, prices: path.join(s.files, 'closes.csv') });
  assert.equal(state, 'failed');
  const compute = s.engine.getRun(runId).steps.find((x) => x.name === 'compute');
  assert.match(JSON.stringify(compute), /input `watchlist` gave 2 tables \(my_watchlist from watchlist\/My watchlist\.csv; watchlist_closes from watchlist\/closes\.csv\); the plan's \{\{table:watchlist\}\} needs exactly one/);
  assert.equal(s.model.requests.length, 0);
});
