/**
 * The agent team: the profiles of the package's `team/` folder and of `<data>/team/`,
 * read at construction (the files are small), checked, saved atomically, removed, and —
 * once `start()` is called (the server does) — re-read when a file under `<data>/team/`
 * changes, keeping a broken file's last good version with its problems listed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import { KowalskiError, messageOf } from '../../core/index.js';
import { writeFileAtomic } from '../../steps/index.js';
import type { Clock } from '../base/clock.js';
import type { Observers } from '../observers.js';
import type { Timers } from '../base/timers.js';
import { didYouMean } from '../horde/index.js';
import { mergeProfiles, readProfiles } from './catalog.js';
import type { TeamCatalog } from './catalog.js';
import { badAgentName, formatTeamProblems, parseProfile } from './profile.js';
import type { AgentProfile, ProfileTools, TeamProblem } from './profile.js';
import type { AgentSource } from '../../contract/team.js';
export type { AgentSource } from '../../contract/team.js';

export interface TeamDeps {
  /** The built-in profiles (the package's `team/`). */
  builtinDir: string;
  /** The user's profiles (`<data>/team/`); need not exist. */
  userDir: string;
  /** The tools a profile may list (built-in tools, delegate_to_agent, granted plugins' tools, `server.tool` of a configured MCP server). */
  tools: ProfileTools;
  clock: Clock;
  timers: Timers;
  observers: Observers;
  /** Quiet time after the last change under `userDir` before the profiles are re-read, ms (default 300). */
  reloadDebounceMs?: number;
}

/** A save refused: every problem, each with its file, key, line and code. */
export class AgentInvalidError extends KowalskiError {
  constructor(name: string, readonly problems: TeamProblem[]) {
    super('KW_ERR_AGENT_INVALID', `the agent profile "${name}" was not saved: ${problems.length} problem(s)\n${formatTeamProblems(problems)}`, { where: whereOf(problems[0]) });
    this.name = 'AgentInvalidError';
  }
}

function whereOf(p: TeamProblem | undefined): { file?: string; key?: string; line?: number } | undefined {
  if (p === undefined) return undefined;
  return { file: p.file, ...(p.key === undefined ? {} : { key: p.key }), ...(p.line === undefined ? {} : { line: p.line }) };
}

/** KW_ERR_AGENT_NOT_FOUND: no agent `name` among `known`, with a did-you-mean for a close name (the hordes' helper); `seeAlso` says where they are listed. */
export function agentNotFound(name: string, known: readonly string[], seeAlso = 'see kowalski agents'): KowalskiError {
  return new KowalskiError('KW_ERR_AGENT_NOT_FOUND', `no agent "${name}" (known agents: ${known.length === 0 ? 'none' : known.join(', ')}; ${seeAlso})${didYouMean(name, known)}`);
}

export class Team {
  private current: TeamCatalog;
  /** The last valid version of each file, by absolute path. */
  private readonly lastGood = new Map<string, AgentProfile>();
  /** The catalog as JSON, to tell whether a re-read changed anything. */
  private signature: string;
  /** The tools a profile could name when the files were last read (a plugin granted or revoked, config.toml's MCP servers changed: read again). */
  private toolsRead: string;
  private watcher: FSWatcher | undefined;
  private cancelReload: (() => void) | undefined;
  private closed = false;

  constructor(private readonly deps: TeamDeps) {
    this.toolsRead = this.toolsKey();
    this.current = this.read();
    this.signature = JSON.stringify(this.current);
  }

  /** The profiles in effect and every file's problems, as last read. */
  catalog(): TeamCatalog {
    return this.now();
  }

  get(name: string): AgentProfile | undefined {
    return this.now().profiles.find((p) => p.name === name);
  }

  /** The profile of that name; KW_ERR_AGENT_NOT_FOUND naming the known agents (and the close ones). */
  require(name: string): AgentProfile {
    const profile = this.get(name);
    if (profile === undefined) throw agentNotFound(name, this.now().profiles.map((p) => p.name));
    return profile;
  }

  /** The file of that name as it is on disk (the user's, else the built-in), with its problems; KW_ERR_AGENT_NOT_FOUND when neither exists. */
  source(name: string): AgentSource {
    const user = this.userFile(name);
    const builtin = path.join(path.resolve(this.deps.builtinDir), `${name}.md`);
    const hasBuiltin = badAgentName(name) === undefined && fs.existsSync(builtin);
    const file = user !== undefined && fs.existsSync(user) ? user : hasBuiltin ? builtin : undefined;
    if (file === undefined) this.require(name);
    let text: string;
    try {
      text = fs.readFileSync(file!, 'utf8');
    } catch (err) {
      throw new KowalskiError('KW_ERR_AGENT_NOT_FOUND', `cannot read the agent profile ${file!}: ${messageOf(err)}`, { cause: err });
    }
    const profile = this.get(name);
    return {
      name, file: file!, text, hasBuiltin,
      origin: file === user ? 'user' : 'builtin',
      profile: profile !== undefined && profile.file === file ? profile : null,
      problems: this.now().problems.filter((p) => p.file === file),
    };
  }

  /** What `save` would say about this text for `<data>/team/<name>.md`, without writing anything. */
  validate(name: string, text: string): TeamProblem[] {
    const result = parseProfile(text, { name, file: this.userPath(name), origin: 'user', tools: this.deps.tools });
    return result.ok ? [] : result.problems;
  }

  /**
   * Check the text, then write it to `<data>/team/<name>.md` (temp file + rename) and
   * re-read the profiles. A built-in's name writes a user override. Refused with
   * KW_ERR_AGENT_INVALID (an AgentInvalidError with every problem) before anything is written.
   */
  save(name: string, text: string): AgentProfile {
    const problems = this.validate(name, text);
    if (problems.length > 0) throw new AgentInvalidError(name, problems);
    writeFileAtomic(this.userPath(name), text);
    this.refresh();
    return this.require(name);
  }

  /** Remove the user's profile of that name (an override: the built-in is back). KW_ERR_AGENT_BUILTIN for a built-in, KW_ERR_AGENT_NOT_FOUND for none. */
  remove(name: string): void {
    const user = this.userFile(name);
    if (user === undefined || !fs.existsSync(user)) {
      if (this.get(name)?.origin === 'builtin') {
        throw new KowalskiError('KW_ERR_AGENT_BUILTIN', `"${name}" is a built-in agent and has no user profile to remove; to change it, save a profile of the same name (an override)`);
      }
      this.require(name);
      throw new KowalskiError('KW_ERR_AGENT_NOT_FOUND', `no user profile "${name}" in ${this.deps.userDir}`);
    }
    fs.rmSync(user);
    this.refresh();
  }

  /** Re-read every profile now; emits `team:changed` when what the catalog holds changed. */
  refresh(): void {
    this.toolsRead = this.toolsKey();
    this.current = this.read();
    const signature = JSON.stringify(this.current);
    if (signature === this.signature) return;
    this.signature = signature;
    this.deps.observers.emit('team:changed', {});
  }

  /** Watch `<data>/team/` and re-read on a change (debounced). Resolves once the watch is ready. */
  async start(): Promise<void> {
    if (this.watcher !== undefined || this.closed) return;
    const dir = path.resolve(this.deps.userDir);
    fs.mkdirSync(dir, { recursive: true });
    const debounce = this.deps.reloadDebounceMs ?? 300;
    const { watch } = await import('chokidar');
    const watcher = watch(dir, { ignoreInitial: true, depth: 0, ignored: (p) => p !== dir && path.basename(p).startsWith('.') });
    this.watcher = watcher;
    watcher.on('all', () => {
      this.cancelReload?.();
      this.cancelReload = this.deps.timers.at(this.deps.clock.now() + debounce, () => {
        this.cancelReload = undefined;
        try {
          this.refresh();
        } catch (err) {
          this.deps.observers.emit('engine:warning', { message: `reloading the agent profiles: ${messageOf(err)}` });
        }
      });
    });
    watcher.on('error', (err) => this.deps.observers.emit('engine:warning', { message: `watching ${dir}: ${messageOf(err)}` }));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    // A change between the first read and the watch being ready is not lost.
    this.refresh();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelReload?.();
    await this.watcher?.close();
  }

  /** The catalog, read again first when the tools a profile may name changed since the last read. */
  private now(): TeamCatalog {
    if (this.toolsKey() !== this.toolsRead) this.refresh();
    return this.current;
  }

  private toolsKey(): string {
    const { tools } = this.deps;
    return JSON.stringify([[...tools.names()].sort(), [...tools.mcpServers()].sort()]);
  }

  private read(): TeamCatalog {
    const { tools } = this.deps;
    return mergeProfiles([...readProfiles(this.deps.builtinDir, 'builtin', tools), ...readProfiles(this.deps.userDir, 'user', tools)], this.lastGood);
  }

  private userPath(name: string): string {
    return path.join(path.resolve(this.deps.userDir), `${name}.md`);
  }

  /** The user's file of that name, or undefined when the name cannot name a file. */
  private userFile(name: string): string | undefined {
    return badAgentName(name) === undefined ? this.userPath(name) : undefined;
  }
}
