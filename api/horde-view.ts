/** Hordes as the API shows them: a summary for the list, the whole graph for one. */
import type { CatalogEntry } from '../engine/index.js';
import type { HordeDetail, HordeSummary } from '../contract/horde.js';
export type { HordeDetail, HordeSummary } from '../contract/horde.js';

const originOf = (entry: CatalogEntry): 'builtin' | 'user' | 'imported' => (entry.origin === 'builtin' || entry.origin === 'imported' ? entry.origin : 'user');

/** The entry that runs under this entry's id, when this one lost the id to it (KW_ERR_HORDE_ID_TAKEN). */
function idTakenBy(entry: CatalogEntry, entries: readonly CatalogEntry[]): { origin: string; dir: string } | undefined {
  if (entry.result.ok || !entry.result.problems.some((p) => p.code === 'KW_ERR_HORDE_ID_TAKEN')) return undefined;
  const winner = entries.find((e) => e !== entry && e.id === entry.id && e.result.ok);
  return winner === undefined ? undefined : { origin: winner.origin, dir: winner.dir };
}

/** `entries`: the whole catalog, to name the horde that holds a clashing id. */
export function hordeSummary(entry: CatalogEntry, entries: readonly CatalogEntry[] = []): HordeSummary {
  const r = entry.result;
  if (!r.ok) {
    const taken = idTakenBy(entry, entries);
    return {
      id: entry.id, displayName: entry.id, description: '', origin: originOf(entry), valid: false, problems: r.problems, inputs: [], triggers: [], stepCount: 0,
      ...(taken === undefined ? {} : { idTakenBy: taken }),
    };
  }
  const h = r.horde;
  return {
    id: h.id, displayName: h.displayName, description: h.description, origin: originOf(entry), valid: true, problems: r.warnings, inputs: h.inputs,
    triggers: h.triggers.map((t) => ({
      name: t.name, kind: t.kind, enabled: t.enabled,
      ...(t.schedule === undefined ? {} : { schedule: t.schedule }),
      ...(t.timezone === undefined ? {} : { timezone: t.timezone }),
      ...(t.path === undefined ? {} : { path: t.path }),
    })),
    stepCount: h.pipeline.length,
  };
}

/** `runsCommand`: whether a step kind runs a command (the engine's `kinds`). */
export function hordeDetail(entry: CatalogEntry, entries: readonly CatalogEntry[], runsCommand: (kind: string) => boolean): HordeDetail {
  const summary = hordeSummary(entry, entries);
  if (!entry.result.ok) return { ...summary, pipeline: [], steps: [], edges: [], display: {}, body: '', confirmCommands: true, runsCommands: false };
  const h = entry.result.horde;
  return {
    ...summary,
    pipeline: h.pipeline,
    steps: h.pipeline.map((name) => {
      const s = h.steps[name]!;
      return {
        name, kind: s.kind, displayName: s.displayName, output: s.output, isolation: s.isolation, tools: s.tools,
        ...(s.description === undefined ? {} : { description: s.description }),
        ...(s.verifyCommand === undefined ? {} : { verifyCommand: s.verifyCommand }),
        ...(s.model === undefined ? {} : { model: s.model }),
      };
    }),
    edges: h.edges,
    display: h.display,
    body: h.body,
    confirmCommands: h.confirmCommands,
    runsCommands: h.pipeline.some((name) => runsCommand(h.steps[name]!.kind)),
  };
}
