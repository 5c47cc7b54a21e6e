/** `provider:model` text → a ModelRef. */
import { KowalskiError } from '../../core/index.js';
import type { ModelRef, ProviderName } from '../types.js';

export const PROVIDER_NAMES: readonly ProviderName[] = ['ollama', 'anthropic', 'openai', 'gemini'];

function isProviderName(text: string): text is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(text);
}

/**
 * Splits at the first colon only, because Ollama model names carry their own tag
 * (`ollama:qwen2.5:7b` is the model `qwen2.5:7b`).
 */
export function parseModelRef(text: string): ModelRef {
  const colon = text.indexOf(':');
  const provider = colon < 0 ? '' : text.slice(0, colon).trim();
  const model = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (!isProviderName(provider) || model === '') {
    throw new KowalskiError('KW_ERR_MODEL_REF',
      `${JSON.stringify(text)} is not a model: write provider:model with provider one of ${PROVIDER_NAMES.join(', ')} (e.g. "ollama:qwen2.5:7b", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash")`);
  }
  return { provider, model };
}

export function formatModelRef(ref: ModelRef): string {
  return `${ref.provider}:${ref.model}`;
}
