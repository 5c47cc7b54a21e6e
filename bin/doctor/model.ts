/**
 * The configured model (`[model] default`): is its provider set up, does its server answer,
 * does it have the model? The engine's own readiness probe (agents/providers/probe.ts: one
 * listing request to Ollama or an OpenAI-compatible server, a key check for the hosted
 * providers), so doctor and `kowalski run` never disagree; no model call is made.
 */
import { parseModelRef, probeModel, providerSettingsFrom } from '../../agents/index.js';
import type { EngineConfig } from '../../engine/index.js';
import { fail, ok, reason, warn } from './check.js';
import type { Check } from './check.js';

const NAME = 'model';
const TIMEOUT_MS = 5000;
const SETUP = 'set it in the app\'s Setup screen, or in config.toml';

export async function checkModel(config: EngineConfig, env: NodeJS.ProcessEnv = process.env): Promise<Check> {
  const text = config.model.default;
  if (text === undefined) return warn(NAME, 'no model is configured: model steps and chat cannot run', `${SETUP} ([model] default = "ollama:qwen2.5:7b")`);
  let ref;
  let settings;
  try {
    ref = parseModelRef(text);
    settings = providerSettingsFrom(config.raw, env);
  } catch (err) {
    return fail(NAME, reason(err), SETUP);
  }
  const probe = await probeModel(ref, settings, TIMEOUT_MS);
  switch (probe.status) {
    case 'ok': return ok(NAME, `${text}: ${probe.message}`);
    case 'not_configured': return fail(NAME, `${text}: ${probe.message}`, SETUP);
    case 'unreachable': return fail(NAME, `${text}: ${probe.message}`, ref.provider === 'ollama' ? 'start Ollama (`ollama serve`), or set [providers.ollama] host / $OLLAMA_HOST' : 'start the server, or correct its base_url in config.toml');
    case 'model_missing': return fail(NAME, `${text}: ${probe.message}`, ref.provider === 'ollama' ? `ollama pull ${ref.model}` : `pick a model it has (${SETUP})`);
  }
}
