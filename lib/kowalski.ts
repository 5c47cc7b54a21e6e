/**
 * `openKowalski`: kowalski embedded in another program. One engine on one data folder
 * (the one the CLI and the server use, unless told otherwise), with the few calls most
 * programs need — ask an agent, give a stopped turn more budget, start a horde's run and
 * wait for it, give the agents a tool of the program's own — and the whole `Engine` for the rest. Opening it goes on with every run
 * and chat turn a crash interrupted, as `kowalski serve` does.
 */
import { KowalskiError } from '../core/index.js';
import { createEngine, parseConfig, resolveDataDir } from '../engine/index.js';
import type { AgentProfile, ChatStop, Engine, EngineConfig, RunState, TurnItem, TurnOutcome, TurnUsage, UndoneWork, UserToolDef } from '../engine/index.js';

export interface OpenOptions {
  /** The data folder (created if missing). Default: $KOWALSKI_HOME, else the platform's data folder — the CLI's. */
  dataDir?: string;
  /** The configuration instead of `<dataDir>/config.toml`: TOML text (as that file holds) or a parsed `EngineConfig`. */
  config?: string | EngineConfig;
  /** Tools registered before the turns a crash interrupted go on (so they can call them again): as `registerTool`, for as long as it is open. */
  tools?: readonly UserToolDef[];
}

/** A piece of streamed text: `node` is `r` for the agent you asked, `r/2.0` for the agent it delegated to in tool call 0 of its model call 2, and so on. */
export interface TokenPiece {
  node: string;
  agent: string;
  text: string;
}

export interface ChatOptions {
  /** Go on with this session (its agent must be the one named); default: a new session. */
  sessionId?: string;
  /** Every piece of text as the models write it, the delegated agents' included (tell them apart by `node`). */
  onToken?(piece: TokenPiece): void;
}

/** A finished turn. */
export interface ChatAnswer {
  sessionId: string;
  turn: number;
  /** The answer; for `budget_exhausted`, a sentence naming what was left undone. */
  text: string;
  stop: ChatStop;
  usage: TurnUsage;
  /** The trace of the agent's last model call (`engine.getTrace(id)`); its delegations' traces are its children. */
  traceId: number | null;
  /** What the agents did in this turn, in the order it started: tool calls (`kind: 'tool'`) and delegations (`kind: 'delegation'`). */
  toolCalls: TurnItem[];
  /** Why the turn stopped, when it did not end `done`. */
  error?: { code: string; message: string };
  /** With `budget_exhausted`: the agents whose work was not finished (`continue` goes on with it). */
  undone?: UndoneWork[];
}

/** An agent of the team, as `kowalski agents` lists it. */
export interface AgentInfo {
  name: string;
  description: string;
  model?: string;
  tools?: string[];
  maxIterations?: number;
  origin: AgentProfile['origin'];
  file: string;
}

export interface Kowalski {
  /** The whole engine: runs, approvals, traces, the team, chat sessions, observers. */
  readonly engine: Engine;
  readonly dataDir: string;
  /** Ask `agent`; resolves when the turn has ended (done, out of budget, or failed). */
  chat(agent: string, text: string, options?: ChatOptions): Promise<ChatAnswer>;
  /** Give a turn its budget stopped `extra` more model calls (default `[chat] max_iterations`); the same turn goes on from its log. */
  continue(sessionId: string, extra?: number, options?: Pick<ChatOptions, 'onToken'>): Promise<ChatAnswer>;
  /** Start a run of a horde (by id or folder) with its form's answers; resolves with the run id once the run is committed. */
  startRun(hordeId: string, input?: Record<string, string>): Promise<string>;
  /** Resolves with the run's state once it has finished, or is parked waiting for an approval. */
  waitForRun(runId: string): Promise<RunState>;
  /** The team's agents (`engine.team.catalog()` has their files' problems too). */
  agents(): AgentInfo[];
  /**
   * Give the agents a tool of this program: offered to the chat agents whose profiles allow it (a `tools` list
   * naming it, or none) and to horde steps that list it, traced like every tool. Returns what removes it.
   * KW_ERR_TOOL_INVALID (name, description, schema), KW_ERR_TOOL_NAME_TAKEN (a tool of that name exists).
   */
  registerTool(tool: UserToolDef): () => void;
  /** Remove a registered tool; false when none of that name was. */
  unregisterTool(name: string): boolean;
  /** Stop: turns under way are left open and go on at the next open (or `kowalski serve`). */
  close(): Promise<void>;
}

const BY = 'library';

export async function openKowalski(options: OpenOptions = {}): Promise<Kowalski> {
  const dataDir = options.dataDir ?? resolveDataDir();
  const config = typeof options.config === 'string' ? parseConfig(options.config, 'the config given to openKowalski') : options.config;
  const engine = await createEngine({ dataDir, ...(config === undefined ? {} : { config }) });
  try {
    for (const tool of options.tools ?? []) engine.userTools.register(tool);
    await engine.recover();
  } catch (err) {
    await engine.close();
    throw err;
  }

  const answerOf = (sessionId: string, outcome: TurnOutcome): ChatAnswer => {
    const view = engine.chat.get(sessionId).transcript.find((t) => t.turn === outcome.turn);
    return {
      sessionId, turn: outcome.turn, text: outcome.text, stop: outcome.stop, usage: outcome.usage, traceId: outcome.traceId,
      toolCalls: view?.items ?? [],
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...(outcome.undone === undefined ? {} : { undone: outcome.undone }),
    };
  };

  return {
    engine,
    dataDir,
    async chat(agent, text, opts = {}) {
      let sessionId = opts.sessionId;
      if (sessionId === undefined) {
        sessionId = engine.chat.create({ agent, by: BY }).id;
      } else {
        const session = engine.chat.summary(sessionId);
        if (session.agent !== agent) throw new KowalskiError('KW_ERR_INPUT_INVALID', `chat session ${sessionId} is with the agent "${session.agent}", not "${agent}"`);
      }
      const sent = engine.chat.send(sessionId, text, { by: BY, ...(opts.onToken === undefined ? {} : { onToken: opts.onToken }) });
      return answerOf(sessionId, await sent.done);
    },
    async continue(sessionId, extra, opts = {}) {
      const sent = engine.chat.grant(sessionId, extra ?? engine.config.chat.maxIterations, { by: BY, ...(opts.onToken === undefined ? {} : { onToken: opts.onToken }) });
      return answerOf(sessionId, await sent.done);
    },
    async startRun(hordeId, input = {}) {
      const { horde } = await engine.resolveHorde(hordeId);
      return engine.startRun(horde, input, { provenance: BY });
    },
    waitForRun: (runId) => engine.waitForRun(runId),
    agents: () => engine.team.catalog().profiles.map((p) => ({
      name: p.name, description: p.description, origin: p.origin, file: p.file,
      ...(p.model === undefined ? {} : { model: p.model }),
      ...(p.tools === undefined ? {} : { tools: [...p.tools] }),
      ...(p.maxIterations === undefined ? {} : { maxIterations: p.maxIterations }),
    })),
    registerTool: (tool) => engine.userTools.register(tool),
    unregisterTool: (name) => engine.userTools.unregister(name),
    close: () => engine.close(),
  };
}
