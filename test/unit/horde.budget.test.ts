import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import type { KowalskiError as KowalskiErrorType } from '../../core/index.js';
import { parseConfig } from '../../engine/index.js';
import { loadHorde } from '../../engine/horde/index.js';
import { baseFiles, expectError, expectOk, writeHorde } from '../fixtures/hordes/temp-horde.js';
import type { TempHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

/** The base horde with this TOML after its pipeline (from line 4). */
function withBudget(toml: string): TempHorde {
  return writeHorde(baseFiles({ horde: `---\nid = "base"\npipeline = ["intake", "check", "report"]\n${toml}\n---\n` }));
}

void test('[budget] loads every limit; a horde without one has none', async (t) => {
  const h = withBudget('[budget]\nmodel_calls = 20\ntokens = 50000\ncost_usd = 0.5\ntool_calls = 40\nwall_secs = 600');
  cleanups(t)(h.cleanup);
  assert.deepEqual(expectOk(await loadHorde(h.dir)).horde.budget, { model_calls: 20, tokens: 50000, cost_usd: 0.5, tool_calls: 40, wall_secs: 600 });
  const plain = withBudget('');
  cleanups(t)(plain.cleanup);
  assert.equal(expectOk(await loadHorde(plain.dir)).horde.budget, undefined);
});

void test('a bad [budget] key or value is KW_ERR_BUDGET_INVALID naming the key and its line', async (t) => {
  const cases: [string, string, number, RegExp][] = [
    ['[budget]\ntokens = 0', 'budget.tokens', 5, /whole number of at least 1, not 0/],
    ['[budget]\nmodel_calls = 2.5', 'budget.model_calls', 5, /whole number of at least 1, not 2.5/],
    ['[budget]\ntool_calls = "ten"', 'budget.tool_calls', 5, /must be a number, not "ten"/],
    ['[budget]\ncost_usd = -1', 'budget.cost_usd', 5, /more than 0/],
    ['[budget]\ntokens = 10\ntokns = 10', 'budget.tokns', 6, /not a limit; the limits are model_calls, tokens, cost_usd, tool_calls, wall_secs/],
    ['budget = 5', 'budget', 4, /must be a table/],
  ];
  for (const [toml, key, line, message] of cases) {
    const h = withBudget(toml);
    cleanups(t)(h.cleanup);
    const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_BUDGET_INVALID', file: 'horde.md', key, line });
    assert.match(p.message, message, toml);
  }
});

void test('config.toml [budget]: the defaults of every run, checked with the key named', () => {
  assert.deepEqual(parseConfig('', '/k/config.toml').budget, {});
  assert.deepEqual(parseConfig('[budget]\nmodel_calls = 200\ncost_usd = 2.0\n', '/k/config.toml').budget, { model_calls: 200, cost_usd: 2 });
  for (const [text, key, message] of [
    ['[budget]\ntokens = -3\n', 'budget.tokens', /whole number of at least 1/],
    ['[budget]\nmodelcalls = 3\n', 'budget.modelcalls', /not a limit/],
  ] as const) {
    assert.throws(() => parseConfig(text, '/k/config.toml'), (err: KowalskiErrorType) => {
      assert.ok(err instanceof KowalskiError);
      assert.equal(err.code, 'KW_ERR_CONFIG_INVALID');
      assert.deepEqual(err.where, { file: '/k/config.toml', key });
      assert.match(err.message, message);
      return true;
    });
  }
});
