/**
 * Reading the profiles of the built-in and the user's team folders, and merging them into
 * the catalog: a user profile overrides a built-in of the same name, and a file that
 * became invalid keeps its last good version (its problems are listed beside it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { MAX_PROFILE_BYTES, parseProfile } from './profile.js';
import type { AgentProfile, ParseResult, ProfileTools, TeamProblem } from './profile.js';
import { messageOf } from '../../core/index.js';

export interface TeamCatalog {
  /** The profiles in effect, by name. */
  profiles: AgentProfile[];
  /** Every problem of every profile file, built-in files first. */
  problems: TeamProblem[];
}

/** One `<name>.md` of a team folder, read. */
export interface ProfileFile {
  name: string;
  file: string;
  origin: AgentProfile['origin'];
  result: ParseResult;
}

/** The `<name>.md` files of a folder (not hidden ones, not folders), by name; none when the folder does not exist. */
export function profileFiles(dir: string): { name: string; file: string }[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries
    .filter((e) => e.name.endsWith('.md') && !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()))
    .map((e) => ({ name: e.name.slice(0, -'.md'.length), file: path.join(dir, e.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Read and check every profile file of `dir`. */
export function readProfiles(dir: string, origin: AgentProfile['origin'], tools: ProfileTools): ProfileFile[] {
  return profileFiles(path.resolve(dir)).map(({ name, file }) => ({ name, file, origin, result: readProfile(file, name, origin, tools) }));
}

function readProfile(file: string, name: string, origin: AgentProfile['origin'], tools: ProfileTools): ParseResult {
  const fail = (code: TeamProblem['code'], message: string): ParseResult => ({ ok: false, problems: [{ file, code, message }] });
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_PROFILE_BYTES) return fail('KW_ERR_AGENT_TOO_LARGE', `the file holds ${size.toLocaleString('en-US')} bytes; a profile may hold at most ${MAX_PROFILE_BYTES.toLocaleString('en-US')}`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    // Removed between the listing and the read, or unreadable: said, never thrown.
    return fail('KW_ERR_AGENT_NOT_FOUND', `cannot read the profile: ${messageOf(err)}`);
  }
  return parseProfile(text, { name, file, origin, tools });
}

/**
 * The catalog of the files read. `lastGood` (by file) is updated in place: a valid file
 * replaces its entry, an invalid one falls back to it, a file gone drops it.
 */
export function mergeProfiles(files: readonly ProfileFile[], lastGood: Map<string, AgentProfile>): TeamCatalog {
  const present = new Set(files.map((f) => f.file));
  for (const file of lastGood.keys()) if (!present.has(file)) lastGood.delete(file);
  const byName = new Map<string, AgentProfile>();
  const problems: TeamProblem[] = [];
  // Built-ins first, so a user profile of the same name replaces one.
  const ordered = [...files.filter((f) => f.origin === 'builtin'), ...files.filter((f) => f.origin === 'user')];
  for (const f of ordered) {
    if (f.result.ok) lastGood.set(f.file, f.result.profile);
    else problems.push(...f.result.problems);
    const profile = lastGood.get(f.file);
    if (profile !== undefined) byName.set(profile.name, profile);
  }
  return { profiles: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems };
}
