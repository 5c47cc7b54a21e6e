/** Costs: list prices by model id (dated, -latest, -preview forms too), 0 for Ollama, null when unknown. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { anthropicPrice, costOf, geminiPrice } from '../../agents/providers/index.js';

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

test('Gemini models are priced by id, also as models/…, -preview, dated preview, -latest and -001', () => {
  assert.deepEqual(geminiPrice('gemini-2.5-flash'), { input: 0.3, output: 2.5 });
  assert.deepEqual(geminiPrice('models/gemini-2.5-flash-lite'), { input: 0.1, output: 0.4 });
  assert.deepEqual(geminiPrice('gemini-2.5-flash-preview-09-2025'), { input: 0.3, output: 2.5 });
  assert.deepEqual(geminiPrice('gemini-3-flash-preview'), { input: 0.5, output: 3 });
  assert.deepEqual(geminiPrice('gemini-2.0-flash-001'), { input: 0.1, output: 0.4 });
  assert.equal(geminiPrice('gemini-3.1-pro-preview')?.input, 2);
  assert.equal(geminiPrice('gemini-9-ultra'), null);
  assert.equal(geminiPrice('gemini-2.5-flash-lite-x'), null, 'never guessed from a neighbour');
  assert.equal(costOf({ provider: 'gemini', model: 'gemini-2.5-flash' }, { inputTokens: 1_000_000, outputTokens: 1_000_000 }), 2.8);
});

test('Gemini Pro charges its long-prompt rate on every token of a call whose prompt is over 200k tokens', () => {
  const ref = { provider: 'gemini' as const, model: 'gemini-3.1-pro-preview' };
  assert.equal(costOf(ref, { inputTokens: 200_000, outputTokens: 1000 }), (200_000 * 2 + 1000 * 12) / 1e6);
  assert.equal(costOf(ref, { inputTokens: 200_001, outputTokens: 1000 }), (200_001 * 4 + 1000 * 18) / 1e6);
});
