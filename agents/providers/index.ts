/** The model providers: one Provider per `provider:model` ref, and what they are built from. */
import type { ModelRef, Provider, ProviderSettings } from '../types.js';
import { AnthropicProvider } from './anthropic.js';
import { GeminiProvider } from './gemini.js';
import { OllamaProvider } from './ollama.js';
import { OpenAICompatibleProvider } from './openai.js';

export { parseModelRef, formatModelRef, PROVIDER_NAMES } from './model-ref.js';
export { providerSettingsFrom, normalizeOllamaHost, DEFAULT_OLLAMA_HOST, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BASE_MS } from './settings.js';
export { costOf, anthropicPrice, geminiPrice } from './pricing.js';
export type { Price } from './pricing.js';
export { parseToolArguments } from './tool-args.js';
export { OllamaProvider } from './ollama.js';
export { AnthropicProvider, DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_MAX_TOKENS } from './anthropic.js';
export { OpenAICompatibleProvider } from './openai.js';
export { GeminiProvider, DEFAULT_GEMINI_BASE_URL } from './gemini.js';

/**
 * A provider for `ref.provider`; the model itself is named per request (`ChatRequest.model`).
 * `openai` without `[providers.openai]` in the settings is KW_ERR_NO_MODEL.
 */
export function createProvider(ref: ModelRef, settings: ProviderSettings): Provider {
  switch (ref.provider) {
    case 'ollama':
      return new OllamaProvider(settings);
    case 'anthropic':
      return new AnthropicProvider(settings);
    case 'openai':
      return new OpenAICompatibleProvider(settings);
    case 'gemini':
      return new GeminiProvider(settings);
    default: {
      const never: never = ref.provider;
      return never;
    }
  }
}
