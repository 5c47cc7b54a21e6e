/** provider:model refs: split at the first colon; anything else names the text and the known providers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { formatModelRef, parseModelRef } from '../../agents/providers/index.js';

test('the provider is before the first colon, the model (with its own tag) after it', () => {
  assert.deepEqual(parseModelRef('ollama:qwen2.5:7b'), { provider: 'ollama', model: 'qwen2.5:7b' });
  assert.deepEqual(parseModelRef('anthropic:claude-sonnet-5-5'), { provider: 'anthropic', model: 'claude-sonnet-5-5' });
  assert.deepEqual(parseModelRef('openai:qwen/qwen3-8b'), { provider: 'openai', model: 'qwen/qwen3-8b' });
  assert.deepEqual(parseModelRef('gemini:gemini-2.5-flash'), { provider: 'gemini', model: 'gemini-2.5-flash' });
  assert.equal(formatModelRef(parseModelRef('ollama:llama3.2:3b')), 'ollama:llama3.2:3b');
});

test('an unknown provider, no colon or no model is KW_ERR_MODEL_REF naming the text and the providers', () => {
  for (const text of ['qwen2.5:7b', 'qwen', 'ollama:', 'vertex:gemini-pro', ':model', '']) {
    assert.throws(() => parseModelRef(text), (err: unknown) => {
      assert.ok(err instanceof KowalskiError);
      assert.equal(err.code, 'KW_ERR_MODEL_REF');
      assert.ok(err.message.includes(JSON.stringify(text)), err.message);
      assert.ok(err.message.includes('ollama, anthropic, openai, gemini'), err.message);
      return true;
    });
  }
});
