/**
 * Where a command's work goes: the server that owns the data directory, over its API
 * and websocket, or else an embedded engine (or, for reading, the database opened
 * read-only). A command picks once, through `withRuns` or `withReader`; both sides
 * answer in the engine's shapes, so the printing does not depend on which it is.
 */
import { KowalskiError, messageOf } from '../../core/index.js';
import type { HordeDef } from '../../core/index.js';
import { createEngine, dataPaths, emptyRecovery, formatRecovery, openHistory } from '../../engine/index.js';
import type { CatalogEntry, EditResult, Engine, HordeReadiness, ListRunsFilter, RecoverySummary, ReviewView, RunRow, RunState, RunView } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';
import type { FollowedEvent } from './progress.js';
import { findServer } from './remote.js';
import type { ApiClient, ServerLookup } from './remote.js';
import { followRemote } from './remote-follow.js';

export interface RunReader {
  getRun(runId: string): Promise<RunView>;
  listRuns(filter: ListRunsFilter): Promise<RunRow[]>;
}

export interface Runs extends RunReader {
  /** Start a run (provenance `cli`); resolves with its id once `run.created` is committed. */
  startRun(found: { horde: HordeDef; entry: CatalogEntry }, input: Record<string, string>): Promise<string>;
  /** Whether the horde's model steps have a model that answers (the engine's check, or the server's). */
  readiness(found: { horde: HordeDef; entry: CatalogEntry }): Promise<HordeReadiness>;
  /** A re-run of `runId` from a step (provenance `rerun:<run-id>`), of its own horde or `found`; resolves with the new run's id. */
  rerun(runId: string, options: { from: string; replayModels: boolean; found?: { horde: HordeDef; entry: CatalogEntry } }): Promise<string>;
  approve(runId: string, options: { step?: string; hash?: string }): Promise<void>;
  /** The artifact a review step waits on (the absolute `file` only from an embedded engine). */
  review(runId: string, options: { step?: string }): Promise<Omit<ReviewView, 'file'>>;
  reviewEdit(runId: string, edit: { hash: string; content: string; step?: string }): Promise<EditResult>;
  deny(runId: string, options: { reason: string; step?: string }): Promise<void>;
  cancel(runId: string, options: { reason?: string }): Promise<void>;
  /** New limits for the run's budget (keys as in `[budget]`). */
  raiseBudget(runId: string, raise: Record<string, unknown>): Promise<void>;
  /**
   * Hand each event of the run after sequence `after` to `onEvent` — the ones already
   * committed, then the live ones — and resolve with its state once it has finished or parks.
   */
  follow(runId: string, after: number, onEvent?: (e: FollowedEvent) => void): Promise<RunState>;
  /** Continue every unfinished run: what was done (`resumed` are the runs now going), and a line about who did it. */
  resume(): Promise<{ summary: RecoverySummary; note?: string }>;
}

function engineRuns(engine: Engine): Runs {
  return {
    getRun: async (runId) => engine.getRun(runId),
    listRuns: async (filter) => engine.listRuns(filter),
    startRun: ({ horde }, input) => engine.startRun(horde, input, { provenance: 'cli' }),
    readiness: ({ horde }) => engine.readiness(horde),
    rerun: (runId, { from, replayModels, found }) => engine.rerun(runId, { from, replayModels, ...(found === undefined ? {} : { horde: found.horde }) }),
    approve: async (runId, options) => void await engine.approve(runId, options),
    review: async (runId, options) => engine.review(runId, options),
    reviewEdit: (runId, edit) => engine.reviewEdit(runId, { ...edit, by: 'operator (cli)' }),
    deny: async (runId, options) => void await engine.deny(runId, options),
    cancel: (runId, options) => engine.cancel(runId, options),
    raiseBudget: async (runId, raise) => void await engine.raiseBudget(runId, raise, { by: 'operator (cli)' }),
    async follow(runId, after, onEvent) {
      let last = after;
      const hear = (e: FollowedEvent): void => {
        if (e.stored.runId !== runId || e.stored.seq <= last) return;
        last = e.stored.seq;
        onEvent?.(e);
      };
      // The log so far, then live events: both in this one synchronous step, so none comes between them.
      if (onEvent !== undefined) for (const stored of engine.events(runId, after)) hear({ stored, state: null });
      const off = engine.on('run:event', hear);
      try {
        return await engine.waitForRun(runId);
      } finally {
        off();
      }
    },
    resume: async () => ({ summary: await engine.recover() }),
  };
}

/** The server recovered every run at its start: continue what is unfinished (a run it could not load is tried again, and reported). */
async function resumeOnServer(api: ApiClient): Promise<{ summary: RecoverySummary; note: string }> {
  const all = async (status: RunState): Promise<RunRow[]> => {
    const rows: RunRow[] = [];
    let cursor: string | null = null;
    do {
      const page: { runs: RunRow[]; nextCursor: string | null } = await api.listRuns({ status, limit: 500, ...(cursor === null ? {} : { cursor }) });
      rows.push(...page.runs);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return rows;
  };
  const [health, queued, running, parked] = await Promise.all([api.health(), all('queued'), all('running'), all('awaiting_input')]);
  const summary: RecoverySummary = { ...emptyRecovery(), parked: parked.length };
  for (const run of [...queued, ...running].sort((a, b) => a.createdAt - b.createdAt)) {
    try {
      await api.resume(run.id);
      summary.resumed.push(run.id);
    } catch (err) {
      if ((err as KowalskiError).code === 'KW_ERR_RUN_FINISHED') continue; // it finished meanwhile
      summary.failed.push({ runId: run.id, message: messageOf(err) });
    }
  }
  const atStart = health.recovery === null ? '' : `; at its start (${new Date(health.startedAt).toISOString()}) it reported ${formatRecovery(health.recovery)}`;
  return { summary, note: `kowalski: the server at ${api.server.url} (process ${api.server.pid}) continues the unfinished runs${atStart}` };
}

/** A server runs only the hordes of its catalog, never a folder named by a client. */
function onlyCatalog(api: ApiClient, entry: CatalogEntry): KowalskiError {
  const hordes = dataPaths(api.server.dataDir).hordes;
  return new KowalskiError('KW_ERR_USAGE', `${entry.dir} is a folder, and the server at ${api.server.url} (process ${api.server.pid}) runs only the hordes of its catalog: copy the folder into ${hordes}/ and run it by its id ("${entry.id}"), or stop the server`);
}

function serverRuns(api: ApiClient): Runs {
  return {
    getRun: (runId) => api.getRun(runId),
    listRuns: async (filter) => (await api.listRuns(filter)).runs,
    startRun({ entry }, input) {
      if (entry.origin === 'path') return Promise.reject(onlyCatalog(api, entry));
      return api.startRun(entry.id, input);
    },
    readiness({ entry }) {
      if (entry.origin === 'path') return Promise.reject(onlyCatalog(api, entry));
      return api.request<HordeReadiness>('GET', `api/hordes/${encodeURIComponent(entry.id)}/readiness`);
    },
    rerun(runId, { from, replayModels, found }) {
      if (found?.entry.origin === 'path') return Promise.reject(onlyCatalog(api, found.entry));
      return api.rerun(runId, { from, replayModels, ...(found === undefined ? {} : { horde: found.entry.id }) });
    },
    approve: async (runId, options) => void await api.approve(runId, options.step, options.hash),
    review: (runId, options) => api.review(runId, options.step),
    reviewEdit: (runId, edit) => api.reviewEdit(runId, edit),
    deny: async (runId, options) => void await api.deny(runId, options.reason, options.step),
    cancel: async (runId, options) => void await api.cancel(runId, options.reason),
    raiseBudget: async (runId, raise) => void await api.raiseBudget(runId, raise),
    follow: (runId, after, onEvent) => followRemote(api, runId, after, onEvent === undefined ? {} : { onEvent }),
    resume: () => resumeOnServer(api),
  };
}

/** Ctrl-C / SIGTERM while `fn` runs: `stop` says what happens to the work, then the process exits 1. */
export async function untilSignal<T>(stop: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
  const onSignal = (): void => void stop().finally(() => process.exit(EXIT.failed));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await fn();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** An embedded engine on the data directory; when a silent server holds it, say so instead of "locked". */
export async function openEngine(dir: string, lookup: ServerLookup): Promise<Engine> {
  try {
    // A command's engine runs what it is asked to, never the runs of a dead node of a shared store.
    return await createEngine({ dataDir: dir, adoptRuns: false });
  } catch (err) {
    if (lookup.kind !== 'silent' || (err as KowalskiError).code !== 'KW_ERR_DATA_DIR_LOCKED') throw err;
    throw new KowalskiError('KW_ERR_SERVER_UNREACHABLE', `a kowalski server (process ${lookup.pid}) owns ${dir} and should answer at ${lookup.url}, but it does not (${lookup.why}). Wait for it, or stop it and try again.`, { cause: err });
  }
}

/** Run `fn` against the server that owns the data directory, else with an embedded engine (closed whatever happens). */
export async function withRuns<T>(fn: (runs: Runs) => Promise<T>): Promise<T> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') {
    const { url } = lookup.api.server;
    return untilSignal(async () => void process.stderr.write(`\nkowalski: stopped following; the runs go on in the server at ${url}\n`), () => fn(serverRuns(lookup.api)));
  }
  const engine = await openEngine(dir, lookup);
  const stop = async (): Promise<void> => {
    process.stderr.write('\nkowalski: stopping; unfinished runs continue with `kowalski resume`\n');
    await engine.close();
  };
  try {
    return await untilSignal(stop, () => fn(engineRuns(engine)));
  } finally {
    await engine.close();
  }
}

/** Run `fn` with the runs of the data directory: from its server, else read-only from the database (no lock taken). */
export async function withReader<T>(fn: (reader: RunReader) => Promise<T>): Promise<T> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') return fn(serverRuns(lookup.api));
  const history = openHistory(dir);
  if (history === undefined) {
    return fn({
      listRuns: async () => [],
      getRun: async (runId) => {
        throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', `no run ${runId}: ${dir} holds no runs yet`);
      },
    });
  }
  try {
    return await fn({ getRun: async (runId) => history.getRun(runId), listRuns: async (filter) => history.listRuns(filter) });
  } finally {
    history.close();
  }
}
