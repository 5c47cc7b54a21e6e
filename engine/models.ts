/**
 * The engine's side of model steps: which model a step uses and how (from config.toml,
 * the environment and what `auto` tool calling learned), the tools steps call (one
 * registry in the engine's process, so an MCP server is one connection shared by every
 * step, and file tools are confined by the engine even for isolated steps), and the
 * traces steps send, stored as they arrive.
 */
import type Database from 'better-sqlite3';
import { KowalskiError } from '../core/index.js';
import type { NoteMode, SendSpec, StepDef } from '../core/index.js';
import { FS_TOOL_NAMES, createFsToolSet, createToolRegistry, providerSettingsFrom } from '../agents/index.js';
import type { ModelCallTrace, ProviderSettings, Tool, ToolCallingMode, ToolOutput, ToolRegistry, ToolSpec } from '../agents/index.js';
import type { AgentTurnAnswer, ModelTask, OwnCode, StepHandlers, SendAnswer, StepRequest, StepCallAnswer, StepTask, VaultReadAnswer, VaultWriteAnswer } from '../steps/index.js';
import type { Clock } from './base/clock.js';
import { DataServers, dataRootOf, isDataToolName } from './data-servers.js';
import type { EngineConfig } from './config.js';
import { FS_TOOL } from './horde/index.js';
import type { Observers } from './observers.js';
import type { TaskExtras } from './runs/step-task.js';
import type { ChatTools } from './chat/turn-run.js';
import type { Timers } from './base/timers.js';
import { TraceStore } from './store/traces.js';
import { traceQueries } from './store/sql/traces.js';
import type { TraceQueries } from './store/sql/traces.js';
import { createEngineTools } from './tools.js';
import type { EngineTools } from './tools.js';

export interface ModelHubDeps {
  db: Database.Database;
  config(): EngineConfig;
  dataDir: string;
  clock: Clock;
  /** Where the data tool's server (`kowalski mcp serve data`) is, and its Node flags. */
  code: OwnCode;
  /** The engine's timers (a data tool server is closed after it has been idle a while). */
  timers: Timers;
  observers: Observers;
  /** On a store shared by several nodes: its traces, every node's (absent: the data folder's, in `db`). */
  sharedTraces?: TraceQueries;
  /** Test-only: `ip:port` pairs web fetches may reach although loopback or private. */
  testOnlyFetchAllow?: readonly string[];
  /** An `agent` step's turn, run by the chat service (made after the hub). */
  agentTurn?(at: { runId: string; step: string; hordeId: string }, agent: string, text: string, signal: AbortSignal): Promise<AgentTurnAnswer>;
  /** A `vault_note` step's write, through the vault's audited writes (engine/runs/step-note.ts). */
  vaultWrite?(at: { runId: string; step: string }, path: string, content: string, mode: NoteMode): Promise<VaultWriteAnswer>;
  /** An `mcp_call` step's call, its answer recorded (engine/runs/step-call.ts); `call` is the hub's own. */
  stepCall?(at: { runId: string; step: string; attempt: number }, call: (signal: AbortSignal) => Promise<ToolOutput>, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<StepCallAnswer>;
  /** A note read for a step (an input `vault:<note>`), through the vault and its path rules. */
  vaultRead?(path: string): Promise<VaultReadAnswer>;
  /** A `send` step's delivery, through a configured adapter, once per run and step (engine/runs/step-send.ts). */
  adapterSend?(at: { runId: string; step: string }, send: SendSpec, text: string): Promise<SendAnswer>;
}

export type ModelStepHandlers = Pick<StepHandlers, 'onRequest' | 'onTrace' | 'onLearned'>;

/** The tools of one step attempt that depend on its run. */
interface RunTools {
  runId: string;
  step: string;
  attempt: number;
  hordeId: string;
  /** The run's `inputs/`, which the data tools serve. */
  dataRoot: string;
  /** A 1.x `fs_tool` step: its file tools, confined to the run's project folder (or workdir). */
  fs?: ToolRegistry;
}

export class ModelHub {
  readonly traces: TraceStore;
  private tools: EngineTools;
  /**
   * Built-in tools the engine's parts provide (the vault's and the memory tools, the Rookery's, granted plugins',
   * the adapters', the library's, run_horde), beside those of config.toml: each part adds its own once it is made
   * (`addTools`). Read each time the tools are built: a part whose tools change calls `reload()`.
   */
  private readonly sources = new Map<string, () => readonly Tool[]>();
  /** Sources were added since the tools were built: they are built again at their next use (once for all the parts of a start). */
  private stale = false;
  /** The data tool of each run's `inputs/`, started on demand. */
  private readonly data: DataServers;
  /** Read with the environment when the config is (re)loaded: a bad OLLAMA_HOST stops the start, not a step. */
  private providers: ProviderSettings;

  constructor(private readonly deps: ModelHubDeps) {
    this.traces = new TraceStore(deps.sharedTraces ?? traceQueries(deps.db));
    this.data = new DataServers({ clock: deps.clock, timers: deps.timers, code: deps.code });
    this.providers = providerSettingsFrom(deps.config().raw, process.env);
    this.tools = this.buildTools();
  }

  private buildTools(): EngineTools {
    return createEngineTools(this.deps.config(), {
      dataDir: this.deps.dataDir,
      engineTools: [...this.sources.values()].flatMap((source) => source()),
      ...(this.deps.testOnlyFetchAllow === undefined ? {} : { testOnlyFetchAllow: this.deps.testOnlyFetchAllow }),
    });
  }

  /**
   * What a step's task carries from here: the model settings for model kinds (with, for a
   * re-run that replays models, the earlier run's answers to this step), the test-only
   * fetch allowance.
   */
  taskExtras(step: StepDef, usesModel: boolean, replayFrom?: string): TaskExtras {
    const extras: TaskExtras = {};
    const model = usesModel ? this.taskFor(step) : undefined;
    if (model !== undefined && replayFrom !== undefined) model.replay = this.traces.replayTable(replayFrom, step.name);
    if (model !== undefined) extras.model = model;
    if (this.deps.testOnlyFetchAllow !== undefined) extras.fetchAllow = this.deps.testOnlyFetchAllow;
    return extras;
  }

  /** What a model step needs; undefined when neither the step nor config.toml names a model. */
  private taskFor(step: StepDef): ModelTask | undefined {
    const config = this.deps.config();
    const model = step.model ?? config.model.default;
    if (model === undefined) return undefined;
    const task: ModelTask = {
      model,
      settings: this.providers,
      toolCalling: config.model.toolCallingByModel[model] ?? config.model.toolCalling,
      maxIterations: config.model.maxToolIterations,
      maxToolErrors: config.model.maxToolErrors,
    };
    const learned = this.traces.learnedMode(model);
    if (learned !== undefined) task.learned = learned;
    return task;
  }

  /**
   * What a step's requests and traces go to: the data tools serve the run's `inputs/`; a
   * step that lists the 1.x `fs_tool` has its file tools confined to the run's project
   * folder, or without one to the run's workdir.
   */
  handlers(task: Pick<StepTask, 'runId' | 'step' | 'attempt' | 'workdir' | 'project' | 'horde'>): ModelStepHandlers {
    const { runId, attempt, workdir } = task;
    const step = task.step.name;
    const run: RunTools = { runId, step, attempt, hordeId: task.horde.id, dataRoot: dataRootOf(workdir) };
    if (task.step.tools.includes(FS_TOOL)) {
      run.fs = createToolRegistry({
        builtins: createFsToolSet(task.project === undefined
          ? { root: workdir, rootName: "run's workdir" }
          : { root: task.project.path, rootName: 'project folder', dataDir: this.deps.dataDir }),
      });
    }
    return {
      onRequest: (request: StepRequest, signal: AbortSignal) => this.answer(request, signal, run),
      onTrace: (trace: ModelCallTrace) => {
        const id = this.traces.insert({ runId, step, attempt }, trace);
        this.deps.observers.emit('trace:recorded', { runId, step, attempt, traceId: id });
      },
      onLearned: (model: string, mode: ToolCallingMode) => this.traces.learn(model, mode, this.deps.clock.now()),
    };
  }

  private answer(request: StepRequest, signal: AbortSignal, run: RunTools): Promise<unknown> {
    switch (request.op) {
      case 'describe-tools':
        return this.describe(request.names, run);
      case 'call-tool':
        return this.call(request.name, request.args, signal, run);
      case 'step-call': {
        const at = { runId: run.runId, step: run.step, attempt: run.attempt };
        const call = (s: AbortSignal): Promise<ToolOutput> => this.call(request.name, request.args, s, run);
        return this.deps.stepCall === undefined ? call(signal).then((output) => ({ output })) : this.deps.stepCall(at, call, request.name, request.args, signal);
      }
      case 'agent-turn':
        if (this.deps.agentTurn === undefined) return Promise.reject(new KowalskiError('KW_ERR_INTERNAL', 'this engine runs no agent turns'));
        return this.deps.agentTurn({ runId: run.runId, step: run.step, hordeId: run.hordeId }, request.agent, request.text, signal);
      case 'vault-write':
        if (this.deps.vaultWrite === undefined) return Promise.reject(new KowalskiError('KW_ERR_INTERNAL', 'this engine has no vault'));
        return this.deps.vaultWrite({ runId: run.runId, step: run.step }, request.path, request.content, request.mode);
      case 'vault-read':
        if (this.deps.vaultRead === undefined) return Promise.reject(new KowalskiError('KW_ERR_INTERNAL', 'this engine has no vault'));
        return this.deps.vaultRead(request.path);
      case 'adapter-send':
        if (this.deps.adapterSend === undefined) return Promise.reject(new KowalskiError('KW_ERR_INTERNAL', 'this engine has no adapters'));
        return this.deps.adapterSend({ runId: run.runId, step: run.step }, request.send, request.text);
      default: {
        const never: never = request;
        return Promise.reject(new Error(`unknown step request ${(never as { op: string }).op}`));
      }
    }
  }

  /**
   * The registry's tools, the data tools of the run (`query_sql`, …) served over its
   * `inputs/`, and for `fs_tool` the run's file tools (which take the place of list_dir,
   * read_file and write_file of the tools folder in that step).
   */
  private async describe(names: string[], run: RunTools): Promise<ToolSpec[]> {
    const fsNames = run.fs === undefined ? [] : FS_TOOL_NAMES;
    const asked = names.flatMap((n) => (n === FS_TOOL ? fsNames : [n]));
    const dataNames = asked.filter(isDataToolName);
    const others = asked.filter((n) => !isDataToolName(n) && !fsNames.includes(n));
    const [fs, data, rest] = await Promise.all([
      run.fs === undefined ? [] : run.fs.describe(fsNames),
      dataNames.length === 0 ? [] : this.data.tools(run.dataRoot, dataNames).then((tools) => tools.map((t) => t.spec)),
      others.length === 0 ? [] : this.current().registry.describe(others),
    ]);
    const byName = new Map([...rest, ...data, ...fs].map((spec) => [spec.name, spec]));
    return [...new Set(asked)].flatMap((n) => byName.get(n) ?? []);
  }

  private async call(name: string, args: Record<string, unknown>, signal: AbortSignal, run: RunTools): Promise<ToolOutput> {
    if (run.fs !== undefined && FS_TOOL_NAMES.includes(name)) return run.fs.call(name, args, signal);
    const dataRoot = run.dataRoot;
    if (!isDataToolName(name)) return this.current().registry.call(name, args, signal);
    const [tool] = await this.data.tools(dataRoot, [name]);
    if (tool === undefined) throw new KowalskiError('KW_ERR_TOOL_UNKNOWN', `the data tool over ${dataRoot} does not list ${name}`);
    return tool.call(args, { signal });
  }

  /** The names of the built-in tools (web_fetch, web_search, the file tools, the vault's). */
  builtinToolNames(): string[] {
    return this.current().registry.builtinNames();
  }

  /** The registry as chat turns use it (the tools of config.toml as they are now). */
  chatTools(): ChatTools {
    const registry = this.current().registry;
    return {
      describe: (names) => registry.describe(names),
      call: (name, args, signal, caller) => registry.call(name, args, signal, caller),
      idempotent: (name) => registry.idempotent(name),
    };
  }

  providerSettings(): ProviderSettings {
    return this.providers;
  }

  /** A part's built-in tools, from now on (`name` names the part: added again, it replaces its tools). */
  addTools(name: string, source: () => readonly Tool[]): void {
    this.sources.set(name, source);
    this.stale = true;
  }

  private current(): EngineTools {
    if (this.stale) this.rebuild();
    return this.tools;
  }

  /** config.toml changed: new tools (and MCP connections) for the next calls; the old ones close. */
  reload(): void {
    this.providers = providerSettingsFrom(this.deps.config().raw, process.env);
    this.rebuild();
  }

  private rebuild(): void {
    this.stale = false;
    const old = this.tools;
    this.tools = this.buildTools();
    void old.close();
  }

  async close(): Promise<void> {
    await Promise.all([this.tools.close(), this.data.close()]);
  }
}
