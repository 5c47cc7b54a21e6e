/**
 * Durability of an `mcp_call` step, against a real MCP price server over stdio
 * (test/fixtures/mcp/prices.mjs), whose every call is appended to a ledger file outside the
 * engine: SIGKILL after the tool answered and its answer was committed, and after the step's
 * work but before its result was committed; restart. The tool is called once in all: the
 * resumed attempt is given the recorded answer, and writes the same rows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { harness } from '../../testkit/crash/support.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';
import { writeHorde } from '../support/engine.js';

const PRICE_SERVER = fileURLToPath(new URL('../fixtures/mcp/prices.mjs', import.meta.url));

for (const point of ['call-after-answer:1', 'before-result-commit:1']) {
  test(`kill -9 at ${point} of an mcp_call step: the tool is called once, the resumed attempt writes the answer it gave`, async (t) => {
    const dir = tempDir(t, 'kw-crash-call-');
    const home = path.join(dir, 'home');
    const calls = path.join(dir, 'calls.ndjson');
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'config.toml'), `[[mcp.servers]]
name = "quotes"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(PRICE_SERVER)}]
env = { PRICES_CALLS = ${JSON.stringify(calls)} }
`);
    const horde = path.join(home, 'hordes', 'closes');
    writeHorde(horde, 'id = "closes"\npipeline = ["fetch"]', {
      fetch: 'kind = "mcp_call"\ntool = "quotes.closes"\narguments = { symbols = "AAPL,MSFT" }\noutput = "inputs/prices/prices.json"',
    });
    const first = await harness(home, ['start', horde, '1'], { env: { KOWALSKI_CRASH_AT: point } });
    assert.equal(first.signal, 'SIGKILL', `killed where asked (exit ${first.code}): ${first.stderr}\n${first.lines.join('\n')}`);
    const runId = first.lines.find((l) => l.startsWith('ACK '))!.slice(4);
    assert.equal(fs.readFileSync(calls, 'utf8').trim().split('\n').length, 1, 'the tool answered before the kill');

    const second = await harness(home, ['resume']);
    assert.equal(second.code, 0, `${second.stderr}\n${second.lines.join('\n')}`);
    assert.ok(second.lines.includes(`DONE ${runId} succeeded`), second.lines.join('\n'));
    assert.deepEqual(fs.readFileSync(calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l)), [{ name: 'closes', args: { symbols: 'AAPL,MSFT' } }], 'never called twice');

    const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
    cleanups(t)(() => engine.close());
    const run = engine.getRun(runId);
    const fetch = run.steps.find((s) => s.name === 'fetch')!;
    assert.equal(fetch.summary, 'quotes.closes: 6 rows into inputs/prices/prices.json (the answer attempt 1 got, before an interruption: not called again)');
    const rows = JSON.parse(fs.readFileSync(path.join(run.workdir, 'inputs', 'prices', 'prices.json'), 'utf8')) as Array<Record<string, unknown>>;
    assert.deepEqual(rows.map((r) => r.symbol), ['AAPL', 'AAPL', 'MSFT', 'AAPL', 'MSFT', 'MSFT']);
    assert.deepEqual(rows[0], { symbol: 'AAPL', date: '2026-03-03', close: 200 });
  });
}
