/**
 * The check Setup answers with when a save changed the model or a provider: is a default
 * model configured, does its provider answer, does it have the model (agents' `probeModel`,
 * the same check a run's readiness makes). Never throws.
 */
import { DEFAULT_PROBE_TIMEOUT_MS, parseModelRef, probeModel } from '../../agents/index.js';
import type { ProbeResult, ProviderSettings } from '../../agents/index.js';
import { messageOf } from '../../core/index.js';

export async function checkDefaultModel(model: string | undefined, settings: ProviderSettings, configFile: string, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  if (model === undefined) {
    return { status: 'not_configured', message: `no default model is set: choose one in Setup, or set default = "provider:model" under [model] in ${configFile}` };
  }
  try {
    const probe = await probeModel(parseModelRef(model), settings, timeoutMs);
    return { status: probe.status, message: `${model}: ${probe.message}` };
  } catch (err) {
    return { status: 'not_configured', message: `${JSON.stringify(model)}: ${messageOf(err)}` };
  }
}
