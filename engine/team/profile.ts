/**
 * One agent profile file: `<name>.md` with TOML front matter and the Markdown body as the
 * system prompt. Reading never throws: every problem is collected with its code, file,
 * key and line, like a horde's.
 */
import type { ErrorCode, Problem } from '../../core/index.js';
import { parseModelRef, toolNameClash, toolNameClashMessage } from '../../agents/index.js';
import { Fields, ProblemList, Source, didYouMean, splitFrontMatter } from '../horde/index.js';
import { badAgentName, messageOf } from '../../core/index.js';
import type { AgentProfile, TeamProblem as TeamProblemOf } from '../../contract/team.js';
export type { AgentProfile } from '../../contract/team.js';

/** A problem of a profile file, coded with one of ours. */
export type TeamProblem = TeamProblemOf<ErrorCode>;

export { AGENT_NAME, MAX_AGENT_NAME, badAgentName } from '../../core/index.js';
/** The largest profile file read, in bytes. */
export const MAX_PROFILE_BYTES = 256 * 1024;
export const MAX_ITERATIONS_LIMIT = 1000;
/** Bounds of `memory_window_tokens`. */
export const MIN_WINDOW_TOKENS = 200;
export const MAX_WINDOW_TOKENS = 1_000_000;
/** The most memories a profile may have injected before a turn. */
export const MAX_MEMORIES = 20;
/** Memories injected before a turn when the profile does not say. */
export const DEFAULT_MEMORIES = 3;
/** The front matter keys a profile takes. */
export const PROFILE_KEYS: readonly string[] = ['name', 'description', 'model', 'tools', 'max_iterations', 'memory_window_tokens', 'memories'];

/** The tools a profile may list. */
export interface ProfileTools {
  has(name: string): boolean;
  /** Every tool's name, for the message of an unknown one (`server.tool` of an MCP server is said apart). */
  names(): readonly string[];
  /** The MCP servers configured, whose `server.tool` a profile may list. */
  mcpServers(): readonly string[];
}

export interface ParseContext {
  /** The name the file gives the profile (its file name without `.md`). */
  name: string;
  file: string;
  origin: AgentProfile['origin'];
  tools: ProfileTools;
}

export type ParseResult = { ok: true; profile: AgentProfile } | { ok: false; problems: TeamProblem[] };

/** Read the text of one profile file. */
export function parseProfile(text: string, ctx: ParseContext): ParseResult {
  const problems = new ProblemList();
  const fail = (): ParseResult => ({ ok: false, problems: problems.sorted().map((p) => toTeamProblem(p, ctx.file)) });
  const nameProblem = badAgentName(ctx.name);
  if (nameProblem !== undefined) problems.error('KW_ERR_AGENT_NAME', { file: ctx.file }, nameProblem);
  if (Buffer.byteLength(text) > MAX_PROFILE_BYTES) {
    problems.error('KW_ERR_AGENT_TOO_LARGE', { file: ctx.file }, `the file holds ${Buffer.byteLength(text).toLocaleString('en-US')} bytes; a profile may hold at most ${MAX_PROFILE_BYTES.toLocaleString('en-US')}`);
    return fail();
  }
  const split = splitFrontMatter(text);
  if (!split.ok) {
    problems.error('KW_ERR_FRONT_MATTER', { file: ctx.file, line: split.line }, split.message);
    return fail();
  }
  const { data, toml, tomlStartLine, body } = split.value;
  const f = new Fields(data, new Source(ctx.file, toml, tomlStartLine), problems);

  const declared = f.string('name', { required: true });
  if (declared !== undefined && declared !== ctx.name) {
    f.bad('name', `name is "${declared}" but the file is ${ctx.name}.md; the file name (without .md) must equal name`, 'KW_ERR_AGENT_NAME');
  }
  const description = f.string('description', { required: true, nonEmpty: true });
  const model = readModel(f);
  const tools = readTools(f, ctx.tools);
  const maxIterations = f.integer('max_iterations', 1);
  if (maxIterations !== undefined && maxIterations > MAX_ITERATIONS_LIMIT) {
    f.bad('max_iterations', `max_iterations is ${maxIterations}; it must be a whole number from 1 to ${MAX_ITERATIONS_LIMIT}`);
  }
  const windowTokens = f.integer('memory_window_tokens', MIN_WINDOW_TOKENS);
  if (windowTokens !== undefined && windowTokens > MAX_WINDOW_TOKENS) {
    f.bad('memory_window_tokens', `memory_window_tokens is ${windowTokens}; it must be a whole number from ${MIN_WINDOW_TOKENS} to ${MAX_WINDOW_TOKENS}`);
  }
  const memories = f.integer('memories', 0);
  if (memories !== undefined && memories > MAX_MEMORIES) f.bad('memories', `memories is ${memories}; it must be a whole number from 0 (none) to ${MAX_MEMORIES}`);
  for (const key of Object.keys(f.unread())) {
    problems.error('KW_ERR_AGENT_KEY_UNKNOWN', f.at(key), `"${key}" is not a key of an agent profile (the keys are ${PROFILE_KEYS.join(', ')})`);
  }
  const prompt = body.trim();
  if (prompt === '') {
    // The body is the file's last lines: it starts this many lines from the end.
    const bodyLine = text.split(/\r?\n/).length - body.split('\n').length + 1;
    problems.error('KW_ERR_AGENT_PROMPT_EMPTY', { file: ctx.file, line: bodyLine }, 'the system prompt is empty: write it as Markdown after the closing --- line');
  }
  if (problems.hasErrors) return fail();

  const profile: AgentProfile = { name: ctx.name, description: description!, prompt, origin: ctx.origin, file: ctx.file };
  if (model !== undefined) profile.model = model;
  if (tools !== undefined) profile.tools = tools;
  if (maxIterations !== undefined) profile.maxIterations = maxIterations;
  if (windowTokens !== undefined) profile.memoryWindowTokens = windowTokens;
  if (memories !== undefined) profile.memories = memories;
  return { ok: true, profile };
}

function readModel(f: Fields): string | undefined {
  const model = f.string('model', { nonEmpty: true });
  if (model === undefined) return undefined;
  try {
    parseModelRef(model);
    return model;
  } catch (err) {
    f.bad('model', `model: ${messageOf(err)}`, 'KW_ERR_MODEL_REF');
    return undefined;
  }
}

function readTools(f: Fields, known: ProfileTools): string[] | undefined {
  const tools = f.stringArray('tools');
  if (tools === undefined) return undefined;
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    if (seen.has(tool)) f.bad(`tools[${i}]`, `"${tool}" is listed twice`);
    const clash = seen.has(tool) ? undefined : toolNameClash([...seen, tool]);
    if (clash !== undefined) f.bad(`tools[${i}]`, toolNameClashMessage(clash), 'KW_ERR_TOOL_NAME_CLASH');
    seen.add(tool);
    if (!known.has(tool)) f.bad(`tools[${i}]`, unknownToolMessage(tool, known), 'KW_ERR_TOOL_UNKNOWN');
  });
  return tools;
}

/** `no tool provides "x"; did you mean "y"?; the tools: …, or server.tool of an MCP server configured in config.toml (…)`. */
function unknownToolMessage(tool: string, known: ProfileTools): string {
  const names = [...known.names()].sort();
  const servers = known.mcpServers();
  const mcp = `server.tool of an MCP server configured in config.toml (${servers.length === 0 ? 'none is' : `configured: ${servers.join(', ')}`})`;
  return `no tool provides "${tool}"${didYouMean(tool, names)}; the tools: ${names.join(', ')}, or ${mcp}`;
}

function toTeamProblem(p: Problem, file: string): TeamProblem {
  // ProblemList takes only ErrorCodes; core's Problem keeps them as text for the wire.
  const out: TeamProblem = { file, code: p.code as ErrorCode, message: p.message };
  if (p.key !== undefined) out.key = p.key;
  if (p.line !== undefined) out.line = p.line;
  return out;
}

/** `file:line: key: message [CODE]`, one problem per line (as `kowalski validate` prints a horde's). */
export function formatTeamProblems(problems: readonly TeamProblem[]): string {
  return problems
    .map((p) => `${p.line === undefined ? p.file : `${p.file}:${p.line}`}:${p.key === undefined ? '' : ` ${p.key}:`} ${p.message} [${p.code}]`)
    .join('\n');
}
