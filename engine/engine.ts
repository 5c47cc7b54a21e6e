/**
 * createEngine: the durable core behind the CLI and the server. Everything it uses
 * comes in through options or is created here; nothing is module-level, so two engines
 * (on two data directories) can live in one process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KowalskiError, hasLimits, messageOf } from '../core/index.js';
import type { HordeDef } from '../core/index.js';
import type { RunEvent, RunState, StepPolicy } from '../actors/index.js';
import { FINAL_RUN_STATES } from '../actors/index.js';
import { builtinStepKinds, createStepRunner, poolSize, resolveInside, thisBuild } from '../steps/index.js';
import type { AgentTurnAnswer, OwnCode, SendAnswer, StepCallAnswer, StepKindInfo, VaultReadAnswer, VaultWriteAnswer } from '../steps/index.js';
import type { Clock } from './base/clock.js';
import { monotonicMicros, systemClock } from './base/clock.js';
import { budgetMeter, runLimits } from './runs/budget.js';
import type { BudgetView } from './runs/budget.js';
import { Committer } from './runs/committer.js';
import { Lifecycle } from './lifecycle.js';
import { INTAKE_HOLD_US, IntakeHold } from './runs/intake-hold.js';
import { crashHookFrom } from './base/crash.js';
import { configuredPostgresUrl, loadConfig } from './config.js';
import type { EngineConfig } from './config.js';
import { dataPaths } from './base/data-dir.js';
import type { DataPaths } from './base/data-dir.js';
import type { StoredEvent } from './store/events.js';
import type { Catalog, CatalogEntry } from './horde/index.js';
import { catalogThread } from './catalog-thread.js';
import { findHorde } from './hordes.js';
import { packageRoot } from './base/modules.js';
import type { ModuleToRun } from './base/modules.js';
import { ModelHub } from './models.js';
import { Observers } from './observers.js';
import type { EngineEventMap } from './observers.js';
import { Resumer, emptyRecovery, recoverRuns } from './runs/recovery.js';
import { runActions } from './runs/run-actions.js';
import type { RecoverySummary } from './runs/recovery.js';
import { checkRunInput } from './runs/run-input.js';
import { checkInputPaths } from './runs/input-paths.js';
import { hordeReadiness } from './setup/readiness.js';
import type { HordeReadiness } from './setup/readiness.js';
import { checkDefaultModel } from './setup/setup-check.js';
import { startCheckpointer } from './store/checkpointer.js';
import { openDatabase } from './store/database.js';
import { EventLog } from './store/event-log.js';
import { lockDataDir } from './store/lock.js';
import { Projections } from './store/projections.js';
import { RunQueries } from './store/queries.js';
import type { ListRunsFilter, RunRow } from './store/queries.js';
import type { TraceDetail, TraceFilter, TraceSummary } from './store/traces.js';
import { newRunId } from './runs/run-id.js';
import { readRunView, requireRunRow, runWorkdir } from './runs/run-view.js';
import { hordeOfRun, planRerun, withRerun } from './runs/rerun.js';
import type { RerunOptions, RerunPlan } from './runs/rerun.js';
import { RunWaiters } from './runs/run-waiters.js';
import type { RunView } from './runs/run-view.js';
import { unknownKind } from './runs/step-task.js';
import { Supervisor } from './runs/supervisor.js';
import { startCluster } from './cluster/cluster.js';
import type { Cluster, ClusterDeps } from './cluster/cluster.js';
import { soleNode } from './store/leases.js';
import type { RunLeases } from './store/leases.js';
import { nodesView } from './cluster/nodes-view.js';
import type { NodesView } from './cluster/nodes-view.js';
import { folderIdOf } from './store/folder-id.js';
import { openPostgresBackend } from './store/pg/backend.js';
import { pgChatTables } from './store/pg/chat-tables.js';
import { pgTraceQueries } from './store/pg/sql/traces.js';
import type { PostgresBackend } from './store/pg/backend.js';
import { pgVaultTables } from './store/pg/vault-tables.js';
import { rookeryQueries } from './store/sql/rookery.js';
import { sqliteRunStore } from './store/run-store.js';
import { TriggerStore } from './store/triggers.js';
import { createTeam } from './team-host.js';
import { ChatService, DELEGATE_TOOL } from './chat/index.js';
import { sqliteChatTables } from './chat/chat-tables.js';
import { teamProfiles } from './chat/team-profiles.js';
import { createRecallTool, createRecentTurnsTool, createRememberTool } from './chat/memory-tools.js';
import { RecallIndex } from './chat/recall.js';
import { recallQueries } from './store/sql/recall.js';
import { pgRecallQueries } from './store/pg/sql/recall.js';
import { heardTokens, PgChatTokens } from './store/pg/chat-tokens.js';
import type { Team } from './team/index.js';
import { createTriggerHost } from './trigger-host.js';
import type { EngineTriggers } from './trigger-host.js';
import { systemTimers } from './base/timers.js';
import { watchConfig } from './config/config-watch.js';
import { fileStamp } from './config/file-stamp.js';
import type { ConfigWatch } from './config/config-watch.js';
import { configSecretValues } from './secrets/secret-values.js';
import { createVaultSearch, followWrites } from './vault/search/index.js';
import type { SemanticConfig, VaultSearch } from './vault/search/index.js';
import type { Timers } from './base/timers.js';
import { createVault, storeNoteLocks } from './vault/index.js';
import type { Vault } from './vault/index.js';
import { RookeryService } from './rookery/rookery-service.js';
import { ROOKERY_TOOL_NAMES, createRookeryTools } from './rookery/rookery-tools.js';
import { RUN_HORDE_TOOL, createRunHordeTool } from './runs/run-horde-tool.js';
import { writeStepNote } from './runs/step-note.js';
import { sendStepMessage } from './runs/step-send.js';
import { reachesOut } from '../core/step-fields.js';
import { stepSendQueries } from './store/sql/step-sends.js';
import { stepCallQueries } from './store/sql/step-calls.js';
import { adapterQueries } from './store/sql/adapters.js';
import { pluginQueries } from './store/sql/plugins.js';
import { pgStepSendQueries } from './store/pg/sql/step-sends.js';
import { pgStepCallQueries } from './store/pg/sql/step-calls.js';
import { pgAdapterQueries } from './store/pg/sql/adapters.js';
import { pgPluginQueries } from './store/pg/sql/plugins.js';
import { callStepTool } from './runs/step-call.js';
import { DATA_TOOL_NAMES, DEFAULT_PROBE_TIMEOUT_MS, listModels } from '../agents/index.js';
import type { ProbeResult } from '../agents/index.js';
import type { ModelList, ModelListProvider } from '../contract/setup.js';
import type { WorkOp } from '../contract/frames.js';
import type { Progress } from '../contract/progress.js';
import { reportWork } from './work.js';
import { ADAPTER_DEFINITIONS, createAdapters } from './adapters/index.js';
import type { AdapterDefinition, Adapters } from './adapters/index.js';
import { PluginService } from './plugins/plugin-service.js';
import { localPluginDir } from './plugins/discover.js';
import { packageVersion } from './base/modules.js';
import { UserTools } from './user-tools.js';
import type { EditResult, ReviewView } from './runs/review.js';

export interface EngineOptions {
  dataDir: string;
  /**
   * With a Postgres store: whether this engine takes over the unfinished runs of nodes that
   * died (default true: a server). A command's short-lived engine (`kowalski run` with no
   * server) says false: it executes its own run, and never another node's.
   */
  adoptRuns?: boolean;
  /** With a Postgres store: the cluster's polls and the wait for a forwarded action (tests shorten or lengthen them). */
  cluster?: Pick<ClusterDeps, 'pollMs' | 'forwardWaitMs' | 'relistenMs'>;
  /** Default: `<dataDir>/config.toml`. */
  config?: EngineConfig;
  clock?: Clock;
  /** Kinds beyond the built-in ones (tests and benchmarks register their own). */
  extraStepKinds?: StepKindInfo[];
  /** Default: the package's `hordes/`. */
  builtinHordesDir?: string;
  /** Default: the package's `team/` (the built-in agent profiles). */
  builtinTeamDir?: string;
  /** Default: $KOWALSKI_CRASH_AT (durability tests only). */
  crashSpec?: string;
  /** Past this many pages the WAL is started over; its checkpoint thread starts at a quarter of it (default 4096 ≈ 16 MiB: store/checkpointer.ts). */
  walPages?: number;
  /** Shown to a second engine that finds the directory locked. */
  ownerUrl?: string;
  /** Test-only: `ip:port` pairs that web fetches may reach although loopback or private. Never set outside tests. */
  testOnlyFetchAllow?: readonly string[];
  /**
   * Where bubblewrap is, to confine plugins' processes (default: `bwrap` on PATH, else /usr/bin/bwrap, used if a
   * trial run works). `null`: none, plugins are confined by Node's permission model only (tests of that path).
   */
  bwrap?: string | null;
  /** A plugin's call (a tool's, an adapter's receive or send) and its start, ms (default 30 000): tests of a plugin that hangs. */
  pluginCallTimeoutMs?: number;
  /** How long an idle chat session stays in memory after its last use, ms (default 30 000); its log brings it back. */
  chatIdleSessionMs?: number;
  /** The engine's timers (default: real timers on `clock`): triggers' schedules and debounces, the hot reload, idle data tool servers. Tests drive them with a simulated clock. */
  timers?: Timers;
  /** Quiet time after a change under `<data>/hordes/` (or `<data>/team/`) before it is re-read, ms (default 300). */
  reloadDebounceMs?: number;
  /** Where the modules of its step threads, step children, spawn helper and data tool server are, and their Node flags (default: this build's; the tests give dist/ when it is current). */
  ownCode?: OwnCode | undefined;
  /** Threads of the step pool (default one per core, at least 4 and at most 8; never more than max_parallel_steps): above it, threads run several steps at once. */
  stepThreads?: number;
  /** How many recently parked runs stay in memory for a quick approval (default 256; 0: none, every approval reads and folds the run's log). */
  parkedKept?: number;
  /** Quiet time after an edit in `<data>/vault/` before it is indexed, ms (default 200). */
  vaultDebounceMs?: number;
  /** The longest the committer holds a commit for webhook deliveries on their way, µs (default 500; 0: never). */
  intakeHoldUs?: number;
  /** The adapter types (default: engine/adapters/definitions.ts; tests pass their own). */
  adapterDefinitions?: readonly AdapterDefinition<unknown>[];
  /** Pauses before an adapter's 2nd, 3rd… reply attempt, ms (default [2000, 10000]: 3 attempts in all). */
  adapterReplyBackoffMs?: readonly number[];
  /** Longest wait for an adapter's start, ms (default 10 000): past it the adapter is `error`. */
  adapterStartTimeoutMs?: number;
  /** On a shared store: how long a vault write waits for a note another node is writing, ms (default NOTE_WAIT_MS, 10 s). */
  noteWaitMs?: number;
}

export interface StartOptions {
  /** `cli`, `api`, `trigger:<name>`, … (default `api`). */
  provenance?: string;
  /** What fired the run (`trigger_time`, `trigger_path`, …): kept with the answers, not checked against the form. */
  triggerInput?: Record<string, string>;
  /** Rows written in the same transaction as `run.created` (a trigger's firing record), given the new run's id. */
  alsoWrite?: (runId: string) => void;
  /** A re-run: the earlier run, and the steps that take its results (engine/runs/rerun.ts). */
  rerun?: Pick<RerunPlan, 'origin' | 'reuse'>;
}

export interface Engine {
  readonly paths: DataPaths;
  /** Where its own modules are and their Node flags (`ownCode`, else this build's): the API's bundle review process starts from it too. */
  readonly ownCode: OwnCode;
  /** The configuration in effect (replaced by `reloadConfig`). */
  readonly config: EngineConfig;
  /** Re-read config.toml after Setup wrote it: the model settings take effect for the next step; store and run limits at the next start. */
  reloadConfig(): EngineConfig;
  /** Read config.toml again whenever it is edited by hand (`config:reloaded`, or a warning when it does not load); the server calls it. */
  watchConfig(): Promise<void>;
  /** The values of the secrets config.toml holds now (engine/secrets/secret-list.ts), to be replaced wherever the server would show them. */
  secretValues(): string[];
  readonly kinds: ReadonlyMap<string, StepKindInfo>;
  /** Triggers: views and switches at once; firing (and hot reload of hordes/) after `triggers.start()`, which the server calls. */
  readonly triggers: EngineTriggers;
  /** The agent profiles (the package's `team/` and `<data>/team/`); hot reload of `<data>/team/` after `team.start()`, which the server calls. */
  readonly team: Team;
  /** Chat sessions with the team's agents: the one agent loop of the CLI, the API, the app and the library. */
  readonly chat: ChatService;
  /** The notes in `<data>/vault/`, the audit of every write kowalski makes to them, and revert. */
  readonly vault: Vault;
  /** The Rookery's drafts: hordes being built in the app's editor or a chat with the builder, and their birth into `<data>/hordes/`. */
  readonly rookery: RookeryService;
  /** Adapters (`[adapters.<name>]`): statuses, enable/disable, the durable record of inbound messages; started by the server (`adapters.start()`). */
  readonly adapters: Adapters;
  /** Plugins under `<data>/plugins/` (and `$KOWALSKI_PLUGIN_DIR`): found at start and on `rescan()`, granted or revoked by the operator; granted plugins' tools join the tool registry. */
  readonly plugins: PluginService;
  /** Tools the embedding program registers (the library's `registerTool`): built-ins of the tool registry while registered. */
  readonly userTools: UserTools;
  /** The vault's search (keyword, and semantic when `[vault.semantic]` is on): rescanned at start; the folder watched and notes embedded after `vaultSearch.start()`, which the server calls. */
  readonly vaultSearch: VaultSearch;
  catalog(): Promise<Catalog>;
  /** A horde by id or folder; throws KW_ERR_HORDE_NOT_FOUND / KW_ERR_HORDE_INVALID. */
  resolveHorde(ref: string): Promise<{ horde: HordeDef; entry: CatalogEntry }>;
  /** Whether the horde's model steps have a model that answers (engine/setup/readiness.ts); never throws. */
  readiness(horde: HordeDef): Promise<HordeReadiness>;
  /** Whether config.toml's default model answers (engine/setup/setup-check.ts), for Setup after a save; never throws. */
  checkDefaultModel(): Promise<ProbeResult>;
  /** The models the saved settings' Ollama or OpenAI-compatible server lists, for Setup's model field; never throws. */
  listModels(provider: ModelListProvider): Promise<ModelList>;
  /** Start a run; resolves with its id once `run.created` is committed. */
  startRun(horde: HordeDef, input: Record<string, string>, options?: StartOptions): Promise<string>;
  /**
   * Re-run a run that has ended (or is parked) from `from`: a new run (provenance
   * `rerun:<run-id>`) whose steps before `from` take the earlier run's results; resolves
   * with its id once its `run.created` is committed. KW_ERR_RUN_ACTIVE,
   * KW_ERR_RERUN_STEP_UNKNOWN, KW_ERR_RERUN_MISMATCH.
   */
  rerun(runId: string, options: RerunOptions): Promise<string>;
  /**
   * Approve the step waiting for it (or `step`); resolves once committed. With `hash`, only
   * when the step waits with that hash (what the operator read: a command's hash, a review's
   * artifact sha256), else KW_ERR_APPROVAL_STALE / KW_ERR_REVIEW_STALE.
   */
  approve(runId: string, options?: { step?: string; hash?: string; by?: string }): Promise<{ step: string }>;
  deny(runId: string, options: { reason: string; step?: string; by?: string }): Promise<{ step: string }>;
  /** The artifact a review step waits on (the step named, or the only one waiting); KW_ERR_NOT_A_REVIEW for a command's approval. */
  review(runId: string, options?: { step?: string }): ReviewView;
  /** Approve a review with the artifact edited: `artifact.edited` (with its diff) and the approval committed, then the file replaced by the step. */
  reviewEdit(runId: string, options: { hash: string; content: string; step?: string; by?: string }): Promise<EditResult>;
  cancel(runId: string, options?: { reason?: string; by?: string }): Promise<void>;
  /** New limits for a run that has not ended (keys as in `[budget]`); a run parked for its budget goes on. KW_ERR_BUDGET_INVALID, KW_ERR_BUDGET_TOO_LOW. */
  raiseBudget(runId: string, raise: Record<string, unknown>, options?: { by?: string }): Promise<BudgetView>;
  /** Continue every queued or running run from its log (parked runs stay parked and unloaded). */
  recover(): Promise<RecoverySummary>;
  /** Continue one queued or running run that is not loaded; a parked run stays parked. Resolves with its state. */
  resume(runId: string): Promise<RunState>;
  getRun(runId: string): RunView;
  /** Model calls, newest first (of one run, or all); paging backwards by id. */
  listTraces(filter: TraceFilter): TraceSummary[];
  /** One model call with its prompt, completion and tool calls; KW_ERR_TRACE_NOT_FOUND. */
  getTrace(id: number): TraceDetail;
  /** Just the run's row (state, last sequence number, …); KW_ERR_RUN_NOT_FOUND for an unknown run. */
  getRunRow(runId: string): RunRow;
  listRuns(filter?: ListRunsFilter): RunRow[];
  events(runId: string, afterSeq?: number, limit?: number): StoredEvent[];
  /** Every run's events after a global sequence number, in commit order (at most `limit`, default 1000). */
  eventsSince(afterGseq: number, limit?: number): StoredEvent[];
  /** The newest committed global sequence number. */
  lastGseq(): number;
  /** The nodes sharing a Postgres store (this one marked), and the latest hand-overs of runs between them; with SQLite, this one node alone. */
  nodes(): NodesView;
  /** The absolute path of a file in the run's workdir; refused outside it (symlinks included). */
  artifactPath(runId: string, rel: string): string;
  /** Resolves with the run's state once it has finished or is parked with nothing running. */
  waitForRun(runId: string): Promise<RunState>;
  on<K extends keyof EngineEventMap>(name: K, fn: (payload: EngineEventMap[K]) => void): () => void;
  /**
   * Run long work an operator asked for with a `Progress` whose reports observers hear as
   * `work:progress` of `op` (throttled, engine/work.ts), then one with `finished: true` however it ends.
   */
  work<T>(op: WorkOp, run: (onProgress: Progress) => Promise<T>): Promise<T>;
  /** Tell other processes (the CLI) that a server for this engine listens at `url`. */
  announce(url: string): void;
  readonly stats: { commits: number; batches: number; events: number };
  /** Webhook deliveries on their way: the route marks each (`arrive()`) so the committer can gather those arriving together into one commit. */
  readonly intake: IntakeHold;
  close(): Promise<void>;
}

/** A prompt file larger than this is not copied into the run's snapshot (the step reads it from the folder). */
const SNAPSHOT_PROMPT_BYTES = 256 * 1024;

/**
 * The horde as a run keeps it (in its `run.created` event): with every prompt file's text
 * as it is now, so editing the folder never changes a run in flight; an imported horde's
 * steps all run in a separate process, whatever the folder says.
 */
function snapshotOf(horde: HordeDef): HordeDef {
  const prompts: Record<string, string> = {};
  for (const step of Object.values(horde.steps)) {
    if (step.promptFile === undefined || prompts[step.promptFile] !== undefined) continue;
    try {
      const file = resolveInside(horde.dir, step.promptFile, 'KW_ERR_PATH_ESCAPES', 'the prompt file');
      if (fs.statSync(file).size <= SNAPSHOT_PROMPT_BYTES) prompts[step.promptFile] = fs.readFileSync(file, 'utf8');
    } catch {
      // Missing or unreadable: the step reads the folder when it runs and reports it there.
    }
  }
  if (horde.origin !== 'imported') return { ...horde, prompts };
  // An imported horde: every step in its own process, and every command waits for the operator, whatever horde.md says.
  const steps = Object.fromEntries(Object.entries(horde.steps).map(([name, step]) => [name, { ...step, isolation: 'process' as const }]));
  return { ...horde, steps, prompts, confirmCommands: true };
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const home = path.resolve(options.dataDir);
  const clock = options.clock ?? systemClock;
  const startedAt = clock.now();
  const timers = options.timers ?? systemTimers(clock);
  // Every part the engine makes is added here as it is made, and closed in reverse order (by `close()`, or at once when the start fails).
  const life = new Lifecycle();
  const lock = life.add('the data folder\'s lock', lockDataDir(home, { pid: process.pid, startedAt: clock.now(), ...(options.ownerUrl === undefined ? {} : { url: options.ownerUrl }) }), (l) => l.release());
  const code = options.ownCode ?? thisBuild();
  // Its own threads' modules from the code it was given (the tests' dist/, without tsx); by default each beside its caller.
  const own = (fromRoot: string): ModuleToRun | undefined => (options.ownCode === undefined ? undefined : { file: code.file(fromRoot), execArgv: code.execArgv });
  try {
    let configStamp = fileStamp(dataPaths(home).config);
    let config = options.config ?? loadConfig(dataPaths(home).config);
    const paths = dataPaths(home, config.store.files);
    fs.mkdirSync(paths.runs, { recursive: true, mode: 0o700 });
    const db = life.add('the database', openDatabase(paths.database, { synchronous: config.store.synchronous, clock }), (d) => d.close());
    const observers = new Observers();
    // The run store: SQLite in the data folder, or the Postgres database the nodes share.
    const postgresUrl = configuredPostgresUrl(config);
    const postgres: PostgresBackend | undefined = postgresUrl === undefined ? undefined : life.add('the Postgres store', openPostgresBackend(postgresUrl, {
      name: `${os.hostname()}:${home}`, folderId: folderIdOf(home), ttlMs: config.store.leaseSecs * 1000, module: own('engine/store/pg/sync-pg.worker'),
    }), (pg) => pg.close());
    // A chat turn's tokens, to the other nodes' followers (real time, as the cluster's beats).
    const chatTokens = postgres === undefined ? undefined : life.add('chat tokens to the other nodes', new PgChatTokens({
      session: postgres.session, nodeId: postgres.nodeId, clock: systemClock, timers: systemTimers(systemClock),
      onError: (err) => observers.emit('engine:warning', { message: `chat tokens to the other nodes: ${messageOf(err)}` }),
    }), (t) => t.close());
    life.add('the WAL checkpointer', await startCheckpointer(db, paths.database, {
      clock, timers, module: own('engine/store/checkpoint.worker'),
      ...(options.walPages === undefined ? {} : { walPages: options.walPages }),
      onError: (message) => observers.emit('engine:warning', { message: `WAL checkpoint: ${message}` }),
    }), (c) => c.stop());
    const runStore = postgres?.store ?? sqliteRunStore(db);
    const leases: RunLeases = postgres?.leases ?? soleNode;
    const storeName = postgres?.where ?? paths.database;
    const log = new EventLog(runStore);
    const queries = new RunQueries(runStore);
    const crash = crashHookFrom(options.crashSpec ?? process.env.KOWALSKI_CRASH_AT);
    // A send step's deliveries and an mcp_call's answers: with the run store, so a run handed to another node finds them.
    const stepSends = postgres === undefined ? stepSendQueries(db) : pgStepSendQueries(postgres.session);
    const stepCalls = postgres === undefined ? stepCallQueries(db) : pgStepCallQueries(postgres.session);
    // With a Postgres store the nodes share the vault's audit and the Rookery's drafts (migration 8), and each note is held across them while it is written.
    const shared = postgres === undefined ? undefined : pgVaultTables(postgres.pg);
    const vault = createVault({
      root: paths.vault, db, clock, crash, maxNoteBytes: config.vault.maxNoteBytes,
      ...(shared === undefined ? {} : {
        shared: { queries: shared.noteWrites, transaction: shared.transaction, locks: storeNoteLocks({
          tryLock: (k) => runStore.tryLockKey(k), unlock: (k) => runStore.unlockKey(k), clock, timers,
          ...(options.noteWaitMs === undefined ? {} : { waitMs: options.noteWaitMs }),
        }) },
      }),
    });
    // Before anything can write a note (a chat turn going on included): a write a crash cut in two is completed or reported.
    const vaultRecovery = await vault.recover();
    let fatal: KowalskiError | undefined;
    /** A commit failed (the run store's, or the chat's tables, which are where the run store is): the engine stops, and says why once. */
    const onFatal = (err: unknown): KowalskiError => {
      if (fatal === undefined) {
        fatal = commitFailure(storeName, err);
        observers.emit('engine:stopped', { error: fatal });
      }
      return fatal;
    };
    // The cluster's place: it beats (holding this node's leases) until the last commit is flushed, though it starts once what it adopts can run.
    const clusterPlace = life.reserve<Cluster>('the cluster', (c) => c.close());
    const intake = new IntakeHold({ maxWaitUs: options.intakeHoldUs ?? INTAKE_HOLD_US, nowUs: monotonicMicros });
    const committer = life.add('the committer', new Committer({
      store: runStore, leases, log, projections: new Projections(runStore), clock, crash, hold: intake, onFatal,
    }), (c) => c.flush());
    const waiters = new RunWaiters(observers);
    const kinds = builtinStepKinds(code);
    for (const k of options.extraStepKinds ?? []) kinds.set(k.kind, k);
    const runner = life.add('the step runner', createStepRunner({ ...poolSize(config.runs.maxParallelSteps, options.stepThreads), code }), (r) => r.close());
    // The episodic memory's index: the node's SQLite, or on Postgres the store's (every node finds every node's turns).
    const recall = new RecallIndex(postgres === undefined ? recallQueries(db) : pgRecallQueries(postgres.session));
    const models = life.add('models and tools', new ModelHub({
      db, config: () => config, dataDir: paths.dataDir, clock, timers, observers, code,
      ...(postgres === undefined ? {} : { sharedTraces: pgTraceQueries(postgres.session) }),
      ...(options.testOnlyFetchAllow === undefined ? {} : { testOnlyFetchAllow: options.testOnlyFetchAllow }),
      agentTurn: (at, agent, text, signal): Promise<AgentTurnAnswer> => chat.stepTurn(at, agent, text, signal),
      vaultWrite: (at, path, content, mode): Promise<VaultWriteAnswer> => writeStepNote({
        create: (p, c, o) => vault.create(p, c, o),
        append: (p, c, o) => vault.append(p, c, o),
        exists: (p) => vault.exists(p),
        runCreatedAt: (runId) => queries.getRun(runId)?.createdAt ?? clock.now(),
      }, at, path, content, mode),
      stepCall: (at, call, name, args, signal): Promise<StepCallAnswer> => callStepTool({
        queries: stepCalls, now: () => clock.now(), crash,
        attemptState: (runId, step, attempt) => queries.attempts(runId).find((a) => a.step === step && a.attempt === attempt)?.state,
      }, at, call, name, args, signal),
      vaultRead: (path): Promise<VaultReadAnswer> => Promise.resolve().then(() => {
        const { note, content } = vault.read(path);
        return { path: note.path, content };
      }),
      adapterSend: (at, send, text): Promise<SendAnswer> => sendStepMessage({
        queries: stepSends, send: (name, message) => adapters.send(name, message), runOf: (runId) => queries.getRun(runId), now: () => clock.now(), crash,
      }, at, send, text),
    }), (m) => m.close());
    // The team reads its profiles again when the tools change.
    const userTools: UserTools = new UserTools({ builtinToolNames: (): string[] => models.builtinToolNames(), onChange: () => models.reload() });
    const supervisor = life.add('the supervisor', new Supervisor({
      committer, log, leases, runner, kinds, observers, clock, crash, models,
      spent: budgetMeter(models.traces, clock),
      runDir: paths.runDir,
      maxParallelSteps: config.runs.maxParallelSteps,
      stepTimeoutSecs: config.runs.stepTimeoutSecs,
      ...(options.parkedKept === undefined ? {} : { parkedKept: options.parkedKept }),
    }), (s) => s.close());
    const resumer = new Resumer(supervisor);
    const builtinDir = options.builtinHordesDir ?? path.join(packageRoot(import.meta.url), 'hordes');
    const knownKinds = new Set(kinds.keys());
    const ensureAlive = (): void => {
      if (fatal !== undefined) throw fatal;
    };
    const startRun = async (horde: HordeDef, input: Record<string, string>, opts: StartOptions = {}): Promise<string> => {
      ensureAlive();
      const answers = checkRunInput(horde, input, opts.triggerInput);
      await checkInputPaths(horde, answers, { exists: (p) => vault.exists(p) });
      ensureAlive();
      const snapshot = snapshotOf(horde);
      const policy: Record<string, StepPolicy> = {};
      for (const name of snapshot.pipeline) {
        const step = snapshot.steps[name]!;
        const kind = kinds.get(step.kind);
        if (kind === undefined) throw unknownKind(step);
        // An imported horde's send or MCP call waits for the operator too (unless its adapter or tool is left empty: it then does nothing): a bundle gains no way out of kowalski silently.
        policy[name] = kind.review === true
          ? { approval: true, idempotent: kind.idempotent, review: true }
          : { approval: (kind.runsCommand && snapshot.confirmCommands) || (kind.outward === true && snapshot.origin === 'imported' && reachesOut(step, answers)), idempotent: kind.idempotent };
      }
      const runId = newRunId(clock.now());
      const plain: Extract<RunEvent, { type: 'run.created' }> = { type: 'run.created', hordeId: horde.id, horde: snapshot, policy, input: answers, provenance: opts.provenance ?? 'api' };
      const limits = runLimits(horde, config.budget);
      if (hasLimits(limits)) plain.budget = limits;
      const created = opts.rerun === undefined ? plain : withRerun(plain, opts.rerun);
      const alsoWrite = opts.alsoWrite;
      await supervisor.create(runId, created, alsoWrite === undefined ? undefined : () => alsoWrite(runId));
      return runId;
    };
    // The catalog is read in a worker thread: a wide horde never holds up the server's event loop.
    const loader = life.add('the catalog thread', catalogThread(undefined, own('engine/catalog.worker')), (l) => l.close());
    const readCatalog = (): Promise<Catalog> => loader.read({ builtinDir, userDir: paths.hordes, knownKinds: [...knownKinds] });
    const triggers = life.add('triggers', createTriggerHost({
      store: new TriggerStore(runStore), queries, observers, clock, paths,
      timers,
      config: () => config,
      catalog: readCatalog,
      startRun,
      ...(options.reloadDebounceMs === undefined ? {} : { reloadDebounceMs: options.reloadDebounceMs }),
    }), (t) => t.close());

    const team = life.add('the team', createTeam({
      dataDir: paths.dataDir, config: () => config, builtinToolNames: () => models.builtinToolNames(), clock, timers, observers,
      ...(options.builtinTeamDir === undefined ? {} : { builtinDir: options.builtinTeamDir }),
      ...(options.reloadDebounceMs === undefined ? {} : { reloadDebounceMs: options.reloadDebounceMs }),
    }), (t) => t.close());

    const chat = life.add('the chat', new ChatService({
      tables: postgres === undefined ? sqliteChatTables(db) : pgChatTables(postgres.session, postgres.chatLeases, postgres.nodeId, chatTokens!),
      clock, timers, observers, traces: models.traces,
      ...(options.chatIdleSessionMs === undefined ? {} : { idleSessionMs: options.chatIdleSessionMs }),
      // "Every tool" leaves out the Rookery's: they edit a horde draft, which only an agent
      // that names them (the builder) is for; the assistant delegates to the builder. And
      // run_horde: starting workflows is given to an agent by name, never by "*".
      profiles: teamProfiles(team, () => config, () => [...models.builtinToolNames().filter((t) => !ROOKERY_TOOL_NAMES.includes(t) && t !== RUN_HORDE_TOOL), DELEGATE_TOOL]),
      tools: () => models.chatTools(),
      config: () => config,
      providers: () => models.providerSettings(),
      recall,
      vault,
      crash,
      onFatal,
    }), (c) => c.close());

    const semanticOf = (c: EngineConfig): SemanticConfig | null => (c.vault.semantic.enabled ? { model: c.vault.semantic.model } : null);
    const vaultSearch = life.add('the vault\'s search', createVaultSearch({
      db, root: paths.vault, vectorsFile: paths.vectors, clock, timers,
      semantic: semanticOf(config),
      providers: () => models.providerSettings(),
      onIndexed: (changed) => observers.emit('vault:indexed', { paths: changed }),
      onWarning: (message) => observers.emit('engine:warning', { message }),
      ...(options.vaultDebounceMs === undefined ? {} : { debounceMs: options.vaultDebounceMs }),
      // The index stays in this data folder: the notes other nodes wrote are indexed again before each search.
      ...(shared === undefined ? {} : { follow: followWrites(shared.noteWrites) }),
    }), (v) => v.close());
    vaultSearch.rescan(); // what changed in the vault while kowalski was stopped
    const rookery: RookeryService = new RookeryService({
      queries: shared?.rookery ?? rookeryQueries(db), clock, observers, hordesDir: paths.hordes,
      knownKinds: () => knownKinds,
      knownTools: (): ReadonlySet<string> => new Set([...models.builtinToolNames(), ...DATA_TOOL_NAMES]),
      chat,
      onBorn: async () => {
        await triggers.refresh();
        observers.emit('catalog:changed', {});
      },
    });
    // Plugins and adapters are where work comes in from outside: made last, they are the first to close.
    const plugins = new PluginService({
      grants: postgres === undefined ? pluginQueries(db) : pgPluginQueries(postgres.session, postgres.nodeId),
      clock, timers, dataDir: paths.dataDir, pluginsDir: paths.plugins, localDir: localPluginDir(paths.plugins, process.env), kowalskiVersion: packageVersion(),
      onToolsChanged: () => models.reload(),
      onChange: () => observers.emit('plugins:changed', {}),
      ...(options.testOnlyFetchAllow === undefined ? {} : { testOnlyFetchAllow: options.testOnlyFetchAllow }),
      ...(options.bwrap === undefined ? {} : { sandbox: { bwrap: options.bwrap } }),
      ...(options.pluginCallTimeoutMs === undefined ? {} : { callTimeoutMs: options.pluginCallTimeoutMs }),
    });
    life.add('plugins', plugins, (p) => p.close());
    await plugins.rescan(); // never throws for a plugin: each failure is recorded with its phase
    const adapters: Adapters = createAdapters({
      // Inbound records, conversations' sessions and switches: shared by the nodes on Postgres.
      queries: postgres === undefined ? adapterQueries(db) : pgAdapterQueries(postgres.session),
      clock, timers, crash, env: process.env,
      definitions: options.adapterDefinitions ?? ADAPTER_DEFINITIONS,
      configs: () => config.adapters,
      // What an adapter checks at every use (the calendar's `write`) is read from the file as it is now.
      currentConfigs: () => loadConfig(paths.config).adapters,
      chat,
      agentExists: (name) => team.get(name) !== undefined,
      onToolsChanged: () => models.reload(),
      onChange: () => observers.emit('adapters:changed', {}),
      // A `type = "plugin"` adapter runs in its plugin's process, under its grants.
      pluginAdapter: (plugin, adapter) => plugins.adapter(plugin, adapter),
      ...(options.adapterReplyBackoffMs === undefined ? {} : { replyBackoffMs: options.adapterReplyBackoffMs }),
      ...(options.adapterStartTimeoutMs === undefined ? {} : { startTimeoutMs: options.adapterStartTimeoutMs }),
    });
    life.add('adapters', adapters, (a) => a.close());
    // The parts' own built-in tools join the registry, in the order the tools are listed (a step's or a turn's calls come after the start).
    models.addTools('the vault\'s and memory\'s', () => [...vault.tools(), createRecallTool(recall), createRememberTool(vault, () => clock.now()), createRecentTurnsTool({ recall, writesOf: (sessionId, limit) => vault.writes({ sessionId, limit }), now: () => clock.now() })]);
    models.addTools('the Rookery\'s', () => createRookeryTools(rookery));
    models.addTools('adapters\'', () => adapters.tools());
    models.addTools('plugins\'', () => plugins.tools());
    models.addTools('the library\'s', () => userTools.tools());
    models.addTools('run_horde', () => [createRunHordeTool({
      catalog: () => readCatalog(),
      startRun: (horde, input, opts) => startRun(horde, input, opts),
      runIdByProvenance: (provenance) => queries.runIdByProvenance(provenance),
      provenanceOf: (runId) => queries.getRun(runId)?.provenance,
      waitForRun: (runId): Promise<RunState> => engine.waitForRun(runId),
      runView: (runId): RunView => engine.getRun(runId),
      isStepSession: (sessionId): boolean => chat.stepOfSession(sessionId) !== undefined,
      appUrl: (): string | null => announced,
      clock, timers,
    })]);
    vault.setIndex(vaultSearch);
    // Started once everything it adopts into can run (its place in the closing order was taken before the committer's).
    const cluster: Cluster | undefined = postgres === undefined ? undefined : clusterPlace.set(startCluster({
      // Real time, whatever the engine's clock: leases expire by the database's clock, so their renewal cannot wait on a simulated one.
      backend: postgres, log, observers, clock: systemClock, timers: systemTimers(systemClock),
      stateOf: (runId) => queries.getRun(runId)?.state,
      ...(options.adoptRuns === false ? {} : {
        adopt: (runId: string) => resumer.resume(runId, emptyRecovery()),
      }),
      ...(options.adoptRuns === false ? {} : {
        // Chat turns under way that no live node holds (their node died or stopped): taken and gone on with from their logs.
        adoptChats: (limit: number) => chat.adopt(postgres!.chatLeases.adoptable(limit)),
        // Adapters' conversations a dead node was answering (its hold went with its connection): their records go on here.
        adoptConversations: () => adapters.pickUpOpen(),
      }),
      chatGrew: (sessionId: string, first: number, last: number) => chat.heard(sessionId, first, last),
      pluginsChanged: () => plugins.grantsChanged(),
      chatTokens: (payload: string) => {
        for (const token of heardTokens(payload, postgres!.nodeId)) observers.emit('chat:token', token);
      },
      stepsRunning: () => supervisor.runningSteps,
      perform: (action, runId, args) => actions.here(action, runId, args),
      onError: (err) => observers.emit('engine:warning', { message: `cluster heartbeat: ${messageOf(err)}` }),
      ...options.cluster,
    }));
    // A stopped engine writes nothing more: its leases must lapse, so that other nodes adopt the runs it held.
    observers.on('engine:stopped', () => void cluster?.close());
    const actions = runActions({
      supervisor, traces: models.traces, clock,
      budgetOf: (runId) => engine.getRun(runId).budget,
      ...(cluster === undefined ? {} : { forward: cluster.forward }),
    });

    let configWatch: Promise<ConfigWatch> | undefined;
    /** Where this engine's server answers, once it said (`announce`). */
    let announced: string | null = null;
    const secretValues = configSecretValues(paths.config);
    const engine: Engine = {
      paths,
      ownCode: code,
      get config() {
        return config;
      },
      secretValues,
      reloadConfig() {
        configStamp = fileStamp(paths.config);
        config = loadConfig(paths.config);
        models.reload();
        team.refresh(); // the MCP servers a profile's tools may name changed with it
        vaultSearch.configure(semanticOf(config)).catch((err: unknown) => observers.emit('engine:warning', { message: `semantic search: ${messageOf(err)}` }));
        return config;
      },
      async watchConfig() {
        if (configWatch !== undefined || life.closed) return;
        configWatch = life.add('the config watch', watchConfig(paths.config, {
          reload: () => {
            if (fileStamp(paths.config) === configStamp) return false;
            engine.reloadConfig();
            return true;
          },
          reloaded: () => observers.emit('config:reloaded', { file: paths.config }),
          warn: (message) => observers.emit('engine:warning', { message }),
          clock, timers, debounceMs: options.reloadDebounceMs ?? 300,
        }), async (w) => (await w).close());
        await configWatch;
      },
      listTraces: (filter) => models.traces.list(filter),
      getTrace(id) {
        const trace = models.traces.get(id);
        if (trace === undefined) throw new KowalskiError('KW_ERR_TRACE_NOT_FOUND', `no trace ${id}`);
        return trace;
      },
      kinds,
      triggers,
      team,
      chat,
      vault,
      vaultSearch,
      rookery,
      adapters,
      plugins,
      userTools,
      stats: committer.stats,
      intake,
      catalog: readCatalog,
      resolveHorde: (ref) => findHorde(ref, { dataDir: paths.dataDir, builtinDir, knownKinds }),
      startRun,
      async rerun(runId, opts) {
        ensureAlive();
        const row = requireRunRow(queries, runId, paths);
        const events = log.read(runId).map((e) => e.event);
        const horde = opts.horde ?? await hordeOfRun(events[0], (ref) => engine.resolveHorde(ref));
        const plan = planRerun(runId, row.state, events, horde, opts);
        return startRun(horde, plan.input, { provenance: `rerun:${runId}`, triggerInput: plan.extraInput, rerun: plan });
      },
      approve: async (runId, opts = {}) => {
        ensureAlive();
        return actions.act('approve', runId, opts);
      },
      deny: async (runId, opts) => {
        ensureAlive();
        return actions.act('deny', runId, opts);
      },
      review(runId, opts = {}) {
        ensureAlive();
        return actions.review(runId, opts.step);
      },
      reviewEdit: async (runId, opts) => {
        ensureAlive();
        return actions.act('review_edit', runId, opts);
      },
      cancel: async (runId, opts = {}) => {
        ensureAlive();
        return actions.act('cancel', runId, opts);
      },
      raiseBudget: async (runId, raise, opts = {}) => {
        ensureAlive();
        return actions.act('raise_budget', runId, { raise, ...opts });
      },
      async recover() {
        const summary = await recoverRuns(resumer, queries);
        summary.vault = vaultRecovery;
        summary.chats = chat.recover();
        return summary;
      },
      async resume(runId) {
        ensureAlive();
        const row = requireRunRow(queries, runId, paths);
        if (FINAL_RUN_STATES.has(row.state)) throw new KowalskiError('KW_ERR_RUN_FINISHED', `run ${runId} has already ${row.state}`);
        if (row.state === 'awaiting_input' || supervisor.isLive(runId)) return row.state;
        const summary = emptyRecovery();
        await resumer.resume(runId, summary);
        const failed = summary.failed[0];
        if (failed !== undefined) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', failed.message);
        return queries.getRun(runId)!.state;
      },
      readiness: (horde) => hordeReadiness(horde, {
        usesModel: (kind) => kinds.get(kind)?.usesModel === true, defaultModel: config.model.default, settings: models.providerSettings(), configFile: paths.config,
      }),
      checkDefaultModel: () => checkDefaultModel(config.model.default, models.providerSettings(), paths.config),
      listModels: (provider) => listModels(provider, models.providerSettings(), DEFAULT_PROBE_TIMEOUT_MS),
      getRun: (runId) => ({ ...readRunView(queries, log, models.traces, runId, paths, clock.now()), agentTurns: chat.stepSessionsOf(runId) }),
      getRunRow: (runId) => requireRunRow(queries, runId, paths),
      listRuns: (filter) => queries.listRuns(filter),
      events: (runId, afterSeq = 0, limit = 100_000) => log.readAfter(runId, afterSeq, limit),
      eventsSince: (afterGseq, limit = 1000) => log.readAllAfter(afterGseq, limit),
      lastGseq: () => log.lastGseq(),
      artifactPath(runId, rel) {
        const abs = resolveInside(runWorkdir(queries, log, runId, paths), rel, 'KW_ERR_PATH_ESCAPES', 'the artifact path');
        if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) throw new KowalskiError('KW_ERR_ARTIFACT_NOT_FOUND', `run ${runId} has no file ${rel} in its workdir`);
        return abs;
      },
      // A run this node is executing, unsettled in memory, cannot be settled on disk: no read needed.
      waitForRun: (runId) => waiters.wait(runId, () => supervisor.unsettledHere(runId) ?? queries.getRun(runId)?.state),
      on: (name, fn) => observers.on(name, fn),
      work: (op, run) => reportWork(op, { emit: (p) => observers.emit('work:progress', p), now: () => clock.now(), timers }, run),
      nodes: () => nodesView(postgres, { pid: process.pid, startedAt, now: clock.now(), runningSteps: supervisor.runningSteps, liveRuns: supervisor.liveCount, chatTurns: chat.turnsRunning, listening: cluster?.listening ?? false, url: announced }),
      announce: (url) => {
        announced = url;
        lock.setUrl(url);
        postgres?.nodes.setUrl(postgres.nodeId, url);
      },
      close: () => life.close(),
    };
    return engine;
  } catch (err) {
    // Whatever was made before the failure, closed as the engine closes; the failure is what the caller hears.
    await life.close().catch(() => undefined);
    throw err;
  }
}

/** What a failed commit means for the operator: a damaged file, a node that lost its runs to another, or a bug / a full disk. */
function commitFailure(file: string, err: unknown): KowalskiError {
  const code = (err as { code?: string }).code ?? '';
  const message = messageOf(err);
  if (code === 'KW409') {
    return new KowalskiError('KW_ERR_STORE_FENCED', `this node stopped: ${message}. It was paused or cut off longer than its leases last; its commit was refused and it wrote nothing more. Start it again.`, { cause: err });
  }
  if (err instanceof KowalskiError) return err;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new KowalskiError('KW_ERR_STORE_CORRUPT', `the database ${file} is damaged (${code}: ${message}); the engine stopped and wrote nothing more. Keep a copy of the data folder, then recover it with sqlite3's ".recover".`, { cause: err, where: { file } });
  }
  return new KowalskiError('KW_ERR_INTERNAL', `a commit to ${file} failed (${code || 'error'}: ${message}); the engine stopped and wrote nothing more`, { cause: err, where: { file } });
}
