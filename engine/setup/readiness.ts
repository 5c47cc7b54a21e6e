/**
 * Can a horde's model steps run? Before a run starts, each model its model steps would
 * use (the step's `model`, else config.toml's `[model] default`) is checked once: is one
 * configured, does its provider answer, does it have the model (agents' `probeModel`).
 * The Run form shows the answer (GET /api/hordes/:id/readiness); `kowalski run` refuses
 * to start when a model is missing or unreachable, unless `--skip-model-check`.
 */
import { KowalskiError, messageOf } from '../../core/index.js';
import type { HordeDef } from '../../core/index.js';
import { DEFAULT_PROBE_TIMEOUT_MS, parseModelRef, probeModel } from '../../agents/index.js';
import type { ProviderSettings } from '../../agents/index.js';
import type { HordeReadiness, ModelReadiness } from '../../contract/horde.js';
export type { HordeReadiness, ModelReadiness } from '../../contract/horde.js';

export interface ReadinessDeps {
  /** Whether a step kind calls a model. */
  usesModel(kind: string): boolean;
  /** config.toml's `[model] default`. */
  defaultModel: string | undefined;
  settings: ProviderSettings;
  configFile: string;
  /** Per model checked; default 3000 ms. */
  timeoutMs?: number;
}

/** Checks every distinct model of the horde's model steps, at the same time. Never throws. */
export async function hordeReadiness(horde: HordeDef, deps: ReadinessDeps): Promise<HordeReadiness> {
  const byModel = new Map<string | null, string[]>();
  for (const name of horde.pipeline) {
    const step = horde.steps[name];
    if (step === undefined || !deps.usesModel(step.kind)) continue;
    const model = step.model ?? deps.defaultModel ?? null;
    byModel.set(model, [...(byModel.get(model) ?? []), name]);
  }
  const timeoutMs = deps.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const models = await Promise.all([...byModel].map(async ([model, steps]): Promise<ModelReadiness> => {
    const one = steps.length === 1;
    const which = `${one ? 'step' : 'steps'} ${steps.map((s) => `\`${s}\``).join(', ')}`;
    if (model === null) {
      return {
        model, steps, status: 'not_configured',
        message: `${which} of ${horde.id} ${one ? 'needs' : 'need'} a model, and none is configured: choose one in the app's Setup screen, or set default = "provider:model" under [model] in ${deps.configFile}`,
      };
    }
    try {
      const probe = await probeModel(parseModelRef(model), deps.settings, timeoutMs);
      return { model, steps, status: probe.status, message: probe.status === 'ok' ? probe.message : `${which} ${one ? 'uses' : 'use'} ${model}: ${probe.message}` };
    } catch (err) {
      return { model, steps, status: 'not_configured', message: `${which} ${one ? 'uses' : 'use'} ${JSON.stringify(model)}: ${messageOf(err)}` };
    }
  }));
  return { hordeId: horde.id, ready: models.every((m) => m.status === 'ok'), models, configFile: deps.configFile };
}

/** KW_ERR_MODEL_NOT_READY listing every model that is not ready; nothing when all are. */
export function assertReady(readiness: HordeReadiness): void {
  const bad = readiness.models.filter((m) => m.status !== 'ok');
  if (bad.length === 0) return;
  throw new KowalskiError('KW_ERR_MODEL_NOT_READY', `${readiness.hordeId} cannot start: ${bad.map((m) => m.message).join('; ')}`, { where: { file: readiness.configFile, key: 'model.default' } });
}
