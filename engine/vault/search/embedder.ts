/**
 * The embedding side of semantic search: `[vault.semantic] model` (`provider:model`)
 * through the model layer's providers — Ollama's `/api/embed`, the OpenAI-compatible
 * `/v1/embeddings`, Gemini's `batchEmbedContents` — in batches of bounded size.
 */
import { KowalskiError } from '../../../core/index.js';
import { formatModelRef } from '../../../agents/index.js';
import type { ModelRef, ProviderSettings } from '../../../agents/index.js';

/** Texts per embedding request. */
export const EMBED_BATCH = 32;

export interface Embedder {
  /** `provider:model`, as pinned in the vector store. */
  readonly model: string;
  /** One vector per text, in order; rejects with the provider's KW_ERR_MODEL_* error. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/** The providers' SDKs are loaded here, at first use, as chat turns load them: never at the engine's start. */
export async function createEmbedder(ref: ModelRef, settings: ProviderSettings): Promise<Embedder> {
  const { createProvider } = await import('../../../agents/providers/index.js');
  const provider = createProvider(ref, settings);
  const model = formatModelRef(ref);
  const embed = provider.embed?.bind(provider);
  if (embed === undefined) throw new KowalskiError('KW_ERR_CONFIG_INVALID', `${model} has no embeddings: [vault.semantic] model must be an ollama:, openai: or gemini: embedding model`);
  return {
    model,
    async embed(texts, signal) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += EMBED_BATCH) {
        const answer = await embed({ model: ref.model, texts: texts.slice(i, i + EMBED_BATCH), ...(signal === undefined ? {} : { signal }) });
        out.push(...answer.vectors);
      }
      return out;
    },
  };
}
