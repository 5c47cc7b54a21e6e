/** The agent team's profiles (`GET /api/agents`, `/api/agents/:name`, docs/agents.md). */

/** An agent profile in effect. */
export interface AgentProfile {
  /** `^[a-z][a-z0-9-]*$`; equals the file's name without `.md`. */
  name: string;
  description: string;
  /** `provider:model`; absent: the configured default model. */
  model?: string;
  /** The tools the agent may call; absent: every tool, `[]`: none. */
  tools?: string[];
  /** A whole number 1..1000. The root profile's value is the budget of its whole delegation tree; absent: the configured default. */
  maxIterations?: number;
  /** `memory_window_tokens`: the earlier turns a turn is given, in tokens (≈ characters / 4) before the oldest are folded into a summary; absent: `[chat] window_tokens`. */
  memoryWindowTokens?: number;
  /** `memories`: memory notes given to the model before each of its turns (0 = none); absent: 3. */
  memories?: number;
  /** The Markdown body: the system prompt. */
  prompt: string;
  origin: 'builtin' | 'user';
  /** The absolute path of the file. */
  file: string;
}

/** A problem of an agent profile file (every one is an error); the server narrows `Code` to its error codes. */
export interface TeamProblem<Code extends string = string> {
  /** The absolute path of the file. */
  file: string;
  key?: string;
  line?: number;
  code: Code;
  message: string;
}

/** `GET /api/agents`. */
export interface AgentList {
  agents: AgentProfile[];
  problems: TeamProblem[];
}

/** `GET /api/agents/:name`: the profile's file as it is on disk. */
export interface AgentSource {
  name: string;
  /** The file in effect: the user's when there is one, else the built-in. */
  origin: AgentProfile['origin'];
  file: string;
  text: string;
  /** The profile in effect (the last good version when the file has problems); null when there is none. */
  profile: AgentProfile | null;
  /** The problems of that file. */
  problems: TeamProblem[];
  /** A built-in profile of this name exists (a user file of the same name overrides it). */
  hasBuiltin: boolean;
}
