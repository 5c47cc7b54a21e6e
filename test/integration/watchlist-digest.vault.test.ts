/**
 * The watchlist digest with its watchlist kept as a note in the vault (`watchlist =
 * "vault:trading/watchlist.md"`): the note's one Markdown table, among the note's other
 * words, is read through the vault by `ingest` and becomes the watchlist table the SQL
 * reads. The numbers must be those worked out by hand for the CSV watchlist. Also: a note
 * with no table, with two, with a row too wide, a note that is not there and a path the
 * vault refuses, each refused with its code, naming the note, before the model is asked.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SqlBatchFile } from '../../agents/index.js';
import { KowalskiError } from '../../core/index.js';
import { cli } from '../../testkit/cli.js';
import { tempDir } from '../../testkit/tmp.js';
import { MOVES, POSITIONS, TOTALS, digestSetup, runDigest, stepOf } from '../support/watchlist-digest.js';
import type { DigestSetup } from '../support/watchlist-digest.js';

/** test/fixtures/watchlist/My watchlist.csv as a user writes it in a note: words around it, aligned columns, a column of remarks. */
const NOTE = `# Watchlist

What I hold and watch; alerts in percent | either way.

| symbol | quantity | alert_pct | remark |
|:-------|---------:|----------:|:-------|
| AAPL   |       10 |         2 | core \\| long |
| MSFT   |        5 |       1.5 | |
| NVDA   |       20 |         3 | "volatile", sized down |
| SAP    |        8 |         1 | |
| NEWCO  |      100 |           | just watched: no alert |

Reviewed on Sundays.
`;

function writeNote(s: DigestSetup, rel: string, text: string): void {
  const file = path.join(s.home, 'vault', rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

test('watchlist-digest with the watchlist as a vault note: its table is the watchlist, and the positions, moves and totals are those of the CSV worked out by hand', async (t) => {
  const s = await digestSetup(t);
  writeNote(s, 'trading/watchlist.md', NOTE);
  const { runId, state, workdir } = await runDigest(s, { watchlist: 'vault:trading/watchlist.md', prices: s.prices });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));

  // The table, as CSV: the escaped pipe is a pipe, the quoted remark quoted, NEWCO's empty alert an empty field.
  assert.equal(fs.readFileSync(path.join(workdir, 'inputs', 'watchlist', 'watchlist.csv'), 'utf8'), [
    'symbol,quantity,alert_pct,remark', 'AAPL,10,2,core | long', 'MSFT,5,1.5,', 'NVDA,20,3,"""volatile"", sized down"', 'SAP,8,1,', 'NEWCO,100,,just watched: no alert', '',
  ].join('\n'));
  assert.match(stepOf(s, runId, 'ingest')?.summary ?? '', /, 1 vault note read$/);
  assert.match(fs.readFileSync(path.join(workdir, stepOf(s, runId, 'ingest')?.artifact ?? 'no artifact'), 'utf8'), /`vault:trading\/watchlist\.md` → `inputs\/watchlist\/watchlist\.csv` — the table at line 5 of the vault note `trading\/watchlist\.md`, 5 rows of 4 columns/);

  const results = JSON.parse(fs.readFileSync(path.join(workdir, 'results', 'compute.json'), 'utf8')) as SqlBatchFile;
  const [positions, moves, totals] = results.queries;
  assert.match(positions!.sql, /FROM watchlist AS w/, 'the note\'s table is the watchlist table');
  assert.deepEqual(positions!.rows, POSITIONS);
  assert.deepEqual(moves!.rows, MOVES);
  assert.deepEqual(totals!.rows, TOTALS);
  assert.equal(s.model.requests.length, 1);
  // The note is read, not written: the vault's only write is the digest's own note.
  assert.deepEqual(s.engine.vault.writes({}).map((w) => w.path).filter((p) => p.startsWith('trading/')), []);
  assert.equal(fs.readFileSync(path.join(s.home, 'vault', 'trading', 'watchlist.md'), 'utf8'), NOTE);
});

test('a watchlist note with no table, two tables or a row too wide fails ingest with KW_ERR_NOTE_TABLE naming the note and the lines; the model is never asked', async (t) => {
  const s = await digestSetup(t);
  writeNote(s, 'prose.md', '# Watchlist\n\nAAPL, MSFT | and NVDA, one day.\n');
  writeNote(s, 'two.md', '| symbol | quantity |\n|---|---|\n| AAPL | 10 |\n\nand\n\n| symbol | alert_pct |\n| --- | --- |\n| AAPL | 2 |\n');
  writeNote(s, 'wide.md', 'x\n\n| symbol | quantity |\n|---|---|\n| AAPL | 10 | 2 |\n');
  const cases: Array<[string, RegExp]> = [
    ['prose.md', /the vault note "prose\.md" holds no Markdown table/],
    ['two.md', /the vault note "two\.md" holds 2 Markdown tables \(at line 1, line 7\); it must hold exactly one/],
    ['wide.md', /the vault note "wide\.md", line 5: the row has 3 cells, the header 2/],
  ];
  for (const [note, message] of cases) {
    const { runId, state, workdir } = await runDigest(s, { watchlist: `vault:${note}`, prices: s.prices });
    assert.equal(state, 'failed', note);
    const ingest = stepOf(s, runId, 'ingest');
    assert.equal(ingest?.error?.code, 'KW_ERR_NOTE_TABLE', JSON.stringify(ingest));
    assert.match(ingest?.error?.message ?? '', message);
    assert.equal(fs.existsSync(path.join(workdir, 'inputs', 'watchlist')), false, 'nothing was written');
  }
  assert.equal(s.model.requests.length, 0);
});

test('a watchlist note that is not in the vault, or a path the vault refuses, is refused before the run exists (KW_ERR_INPUT_INVALID naming it)', async (t) => {
  const s = await digestSetup(t);
  const { horde } = await s.engine.resolveHorde('watchlist-digest');
  const cases: Array<[string, RegExp]> = [
    ['vault:trading/none.md', /"watchlist" \(.*\): there is no note "trading\/none\.md" in the vault/],
    ['vault:../config.toml', /"watchlist" \(.*\): vault:\.\.\/config\.toml: /],
  ];
  for (const [value, message] of cases) {
    await assert.rejects(s.engine.startRun(horde, { watchlist: value, prices: s.prices }), (err: unknown) => {
      assert.ok(err instanceof KowalskiError);
      assert.equal(err.code, 'KW_ERR_INPUT_INVALID');
      assert.match(err.message, message);
      return true;
    });
  }
  assert.equal(s.engine.listRuns().length, 0);
});

test('kowalski run gives a vault: answer to the engine as it is (a relative path would be made absolute from where it was typed)', async (t) => {
  const home = tempDir(t, 'kw-digest-cli-');
  const r = await cli(home, ['run', 'watchlist-digest', '--skip-model-check', '--input', 'watchlist=vault:trading/none.md', '--input', 'prices=/nowhere/prices.csv']);
  assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /"watchlist" \(.*\): there is no note "trading\/none\.md" in the vault/);
  assert.match(r.stderr, /KW_ERR_INPUT_INVALID/);
});
