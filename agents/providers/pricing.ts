/** What a model call costs, from the token counts the provider reported. */
import type { ModelRef, Usage } from '../types.js';

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  /** A dearer rate for every token of a call whose prompt is longer than `aboveInputTokens` (Haiku 5.5, Gemini Pro). */
  longPrompt?: { aboveInputTokens: number; input: number; output: number };
}

const OPUS_4_5_TO_5: Price = { input: 5, output: 25 };
const OPUS_4: Price = { input: 15, output: 75 };
const SONNET_3_TO_4: Price = { input: 3, output: 15 };
const SONNET_5: Price = { input: 2, output: 10 };
const MYTHOS_CLASS: Price = { input: 10, output: 50 };

/**
 * Anthropic list prices (platform.claude.com, models and pricing pages, 2026), by model
 * id. Each id is listed on its own, because prices do not follow version numbers (Opus
 * 4.5 cost a third of Opus 4.1, Opus 5.5 less than Opus 5): a model missing here has an
 * unknown price (null) rather than a guessed one.
 */
const ANTHROPIC_PRICES: Readonly<Record<string, Price>> = {
  'claude-fable-5-1': MYTHOS_CLASS,
  'claude-fable-5': MYTHOS_CLASS,
  'claude-mythos-5-1': MYTHOS_CLASS,
  'claude-mythos-5': MYTHOS_CLASS,
  'claude-opus-5-5': { input: 4, output: 20 },
  'claude-opus-5': OPUS_4_5_TO_5,
  'claude-opus-4-8': OPUS_4_5_TO_5,
  'claude-opus-4-7': OPUS_4_5_TO_5,
  'claude-opus-4-6': OPUS_4_5_TO_5,
  'claude-opus-4-5': OPUS_4_5_TO_5,
  'claude-opus-4-1': OPUS_4,
  'claude-opus-4-0': OPUS_4,
  'claude-opus-4': OPUS_4,
  'claude-3-opus': OPUS_4,
  'claude-sonnet-5-5': SONNET_5,
  'claude-sonnet-5': SONNET_5,
  'claude-sonnet-4-6': SONNET_3_TO_4,
  'claude-sonnet-4-5': SONNET_3_TO_4,
  'claude-sonnet-4-0': SONNET_3_TO_4,
  'claude-sonnet-4': SONNET_3_TO_4,
  'claude-3-7-sonnet': SONNET_3_TO_4,
  'claude-3-5-sonnet': SONNET_3_TO_4,
  'claude-haiku-5-5': { input: 0.1, output: 0.5, longPrompt: { aboveInputTokens: 100_000, input: 0.5, output: 2.5 } },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-3-haiku': { input: 0.25, output: 1.25 },
};

/** The price of a model id, also in its dated (`-20250929`) and `-latest` forms; null when unknown. */
export function anthropicPrice(model: string): Price | null {
  const base = model.replace(/-(\d{8}|latest)$/, '');
  return ANTHROPIC_PRICES[base] ?? null;
}

const GEMINI_PRO_3: Price = { input: 2, output: 12, longPrompt: { aboveInputTokens: 200_000, input: 4, output: 18 } };
const GEMINI_FLASH_LITE_2: Price = { input: 0.1, output: 0.4 };

/**
 * Gemini API list prices for text (ai.google.dev/gemini-api/docs/pricing, paid tier,
 * 2026), by model id; output includes thinking tokens. As for Anthropic, a model missing
 * here has an unknown price (null).
 */
const GEMINI_PRICES: Readonly<Record<string, Price>> = {
  'gemini-3.5-flash': { input: 1.5, output: 9 },
  'gemini-3.1-pro': GEMINI_PRO_3,
  'gemini-3-pro': GEMINI_PRO_3,
  'gemini-3.1-flash-lite': { input: 0.25, output: 1.5 },
  'gemini-3-flash': { input: 0.5, output: 3 },
  'gemini-2.5-pro': { input: 1.25, output: 10, longPrompt: { aboveInputTokens: 200_000, input: 2.5, output: 15 } },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.5-flash-lite': GEMINI_FLASH_LITE_2,
  'gemini-2.0-flash': GEMINI_FLASH_LITE_2,
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
};

/**
 * The price of a Gemini model id, also written `models/…` and in its `-preview`, dated
 * preview (`-preview-09-2025`), `-latest` and numbered (`-001`) forms; null when unknown.
 */
export function geminiPrice(model: string): Price | null {
  const id = model.replace(/^models\//, '');
  const base = id.replace(/-(preview(-\d{2}-\d{2,4})?|latest|\d{3})$/, '');
  return GEMINI_PRICES[id] ?? GEMINI_PRICES[base] ?? null;
}

function priced(price: Price | null, usage: Usage): number | null {
  if (price === null) return null;
  const rate = price.longPrompt !== undefined && usage.inputTokens > price.longPrompt.aboveInputTokens ? price.longPrompt : price;
  return (usage.inputTokens * rate.input + usage.outputTokens * rate.output) / 1_000_000;
}

/** US dollars; 0 for local Ollama models; null when the price is unknown (OpenAI-compatible servers, unlisted models). */
export function costOf(ref: ModelRef, usage: Usage): number | null {
  switch (ref.provider) {
    case 'ollama':
      return 0;
    case 'openai':
      return null;
    case 'anthropic':
      return priced(anthropicPrice(ref.model), usage);
    case 'gemini':
      return priced(geminiPrice(ref.model), usage);
    default: {
      const never: never = ref.provider;
      return never;
    }
  }
}
