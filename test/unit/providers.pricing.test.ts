/** Costs: list prices by model id (dated and -latest forms too), 0 for Ollama, null when unknown. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { anthropicPrice, costOf } from '../../agents/providers/index.js';

test('Anthropic models are priced by id, including their dated and -latest forms', () => {
  assert.deepEqual(anthropicPrice('claude-sonnet-4-5-20250929'), { input: 3, output: 15 });
  assert.deepEqual(anthropicPrice('claude-opus-4-1'), { input: 15, output: 75 });
  assert.deepEqual(anthropicPrice('claude-opus-4-5'), { input: 5, output: 25 });
  assert.deepEqual(anthropicPrice('claude-opus-4-20250514'), { input: 15, output: 75 });
  assert.deepEqual(anthropicPrice('claude-3-5-haiku-latest'), { input: 0.8, output: 4 });
  assert.equal(costOf({ provider: 'anthropic', model: 'claude-opus-5-5' }, { inputTokens: 1_000_000, outputTokens: 1_000_000 }), 24);
});

test('a model whose price is not listed is unknown (null), never guessed from a neighbour', () => {
  assert.equal(anthropicPrice('claude-opus-4-9'), null);
  assert.equal(anthropicPrice('claude-fable-5-2'), null);
  assert.equal(costOf({ provider: 'anthropic', model: 'claude-opus-4-9' }, { inputTokens: 10, outputTokens: 10 }), null);
});

test('Haiku 5.5 charges its long-prompt rate on every token of a call whose prompt is over 100k tokens', () => {
  const ref = { provider: 'anthropic' as const, model: 'claude-haiku-5-5' };
  assert.equal(costOf(ref, { inputTokens: 100_000, outputTokens: 1000 }), (100_000 * 0.1 + 1000 * 0.5) / 1e6);
  assert.equal(costOf(ref, { inputTokens: 100_001, outputTokens: 1000 }), (100_001 * 0.5 + 1000 * 2.5) / 1e6);
});

test('Ollama is local (0); OpenAI-compatible servers are unknown (null)', () => {
  assert.equal(costOf({ provider: 'ollama', model: 'qwen2.5:7b' }, { inputTokens: 5000, outputTokens: 5000 }), 0);
  assert.equal(costOf({ provider: 'openai', model: 'qwen3-8b' }, { inputTokens: 5000, outputTokens: 5000 }), null);
});
