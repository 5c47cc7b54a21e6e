/**
 * config.example.toml, rendered from the catalog of keys (keys.ts): every section and key
 * with its comment, each key as `#key = value` (its default, else an example) so the file
 * means the defaults until a `#` is removed. A secret is named in a comment, never given a
 * value. `npm run config:example` writes it at the repository's root; `kowalski init`
 * writes the same text as a new config.toml.
 */
import { CONFIG_SECTIONS } from './keys.js';
import type { ConfigKey, ConfigSection, ConfigValue } from './keys.js';

const HEAD = [
  "# kowalski's config.toml: every key it takes, each with what it does.",
  '# Rendered from engine/config/keys.ts (`npm run config:example`); `kowalski init` writes it as',
  "# the data folder's config.toml. Every key is optional: a line `#key = value` shows the key's",
  '# default (or, marked "example", a value to start from) — remove its "#" to set it. Where an',
  '# ecosystem has a variable (OLLAMA_HOST, ANTHROPIC_API_KEY…) the variable wins over the file.',
  '# Secrets are named, never shown: prefer the *_env keys and the variables; a secret written',
  '# here means this file must stay owner-only (chmod 600). `kowalski doctor` warns about keys',
  '# that are not listed here (a misspelt key is otherwise ignored).',
];

/** A value as TOML writes it (strings as basic strings, arrays and tables inline). */
export function tomlValue(v: ConfigValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${(v as readonly string[]).map((s) => JSON.stringify(s)).join(', ')}]`;
  return `{ ${Object.entries(v).map(([k, s]) => `${k} = ${JSON.stringify(s)}`).join(', ')} }`;
}

function keyLines(k: ConfigKey): string[] {
  if (k.secret === true) return [`# ${k.key}: ${k.comment} (a secret: no value shown here)`];
  const value = k.default ?? k.example;
  if (value === undefined) throw new Error(`config catalog: ${k.key} has neither a default nor an example`);
  return [`# ${k.comment}${k.default === undefined ? ' (example)' : ''}`, `#${k.key} = ${tomlValue(value)}`];
}

function sectionLines(s: ConfigSection): string[] {
  const name = s.name.replace('<name>', String(s.keys.find((k) => k.key === 'type')?.example ?? 'name'));
  const header = s.kind === 'array' ? `[[${name}]]` : `[${name}]`;
  const lines = ['', `# ${s.comment}`, `${s.optIn === true ? '#' : ''}${header}`];
  const alternative = s.alternative;
  const main = s.keys.filter((k) => alternative?.keys.includes(k.key) !== true);
  lines.push(...main.flatMap(keyLines));
  for (const [key, value] of Object.entries(s.entries ?? {})) lines.push(`#${key} = ${tomlValue(value)}`);
  if (s.openEnded !== undefined) lines.push(`# …and ${s.openEnded}`);
  if (alternative !== undefined) {
    lines.push(`# ${alternative.comment}`, `#${header}`, `#name = ${tomlValue(alternative.name)}`);
    lines.push(...s.keys.filter((k) => alternative.keys.includes(k.key)).flatMap(keyLines));
  }
  return lines;
}

/** The text of config.example.toml. */
export function renderConfigExample(): string {
  return `${[...HEAD, ...CONFIG_SECTIONS.flatMap(sectionLines)].join('\n')}\n`;
}
