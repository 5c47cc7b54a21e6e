/**
 * Tool names as providers accept them. Anthropic takes `[A-Za-z0-9_-]{1,128}`, OpenAI
 * `[A-Za-z0-9_-]{1,64}`, Gemini a name of at most 64 characters that starts with a letter
 * or `_`; Ollama takes anything. So a name is offered under the one form all of them
 * accept — `[A-Za-z_][A-Za-z0-9_-]{0,63}` — and mapped back when the model calls it:
 * `server.tool` (an MCP tool) travels as `server__tool`, any other character as `_`, a
 * name that starts with a digit or `-` gets a leading `_`, and one longer than 64 keeps
 * its first 55 characters and 8 hex digits of its hash. A name already in that form is
 * offered as it is. Two names that would travel under one form are a clash, refused
 * where the names are read (a profile, a horde step) and before a model is asked.
 */
import { createHash } from 'node:crypto';
import { KowalskiError } from '../core/index.js';

const ACCEPTED = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const MAX = 64;

/** The name `name` is offered under in a provider's tool field. */
export function toolWireName(name: string): string {
  if (ACCEPTED.test(name)) return name;
  let wire = name.replace(/\./g, '__').replace(/[^A-Za-z0-9_-]/g, '_');
  if (!/^[A-Za-z_]/.test(wire)) wire = `_${wire}`;
  if (wire.length > MAX) wire = `${wire.slice(0, MAX - 9)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
  return wire;
}

export interface ToolNameClash {
  /** The names in the order they were listed: `first` before `second`. */
  first: string;
  second: string;
  wire: string;
}

/** The first two names of `names` offered under one form, if any (a name listed twice is not a clash). */
export function toolNameClash(names: Iterable<string>): ToolNameClash | undefined {
  const byWire = new Map<string, string>();
  for (const name of names) {
    const wire = toolWireName(name);
    const other = byWire.get(wire);
    if (other !== undefined && other !== name) return { first: other, second: name, wire };
    byWire.set(wire, name);
  }
  return undefined;
}

/** The words of a clash, for a problem or an error. */
export function toolNameClashMessage(clash: ToolNameClash): string {
  return `the tools "${clash.first}" and "${clash.second}" would both be offered to the model as "${clash.wire}" ` +
    '(tool names travel as letters, digits, _ and -): rename one of them, e.g. the MCP server in config.toml';
}

/** Each name's wire form and back; KW_ERR_TOOL_NAME_CLASH when two names share one. */
export function wireNames(names: Iterable<string>): { toWire: Map<string, string>; fromWire: Map<string, string> } {
  const list = [...names];
  const clash = toolNameClash(list);
  if (clash !== undefined) throw new KowalskiError('KW_ERR_TOOL_NAME_CLASH', toolNameClashMessage(clash));
  const toWire = new Map(list.map((name) => [name, toolWireName(name)]));
  return { toWire, fromWire: new Map([...toWire].map(([name, wire]) => [wire, name])) };
}
