/**
 * The tools of the example plugin. Each export takes the call's arguments (already checked
 * against the tool's `input` schema) and a context (`plugin`, `dataDir`, `signal`, `fetch`),
 * and returns text, `{content}`, or any JSON value.
 */
import { readFile } from 'node:fs/promises';

export function greet({ name }) {
  return `Hello, ${name}!`;
}

export async function wordCount({ path }, { signal }) {
  // Outside what the operator granted, Node's permission model refuses the read
  // (ERR_ACCESS_DENIED), and kowalski reports it as KW_ERR_PLUGIN_PERMISSION.
  const text = await readFile(path, { encoding: 'utf8', signal });
  const words = text.split(/\s+/).filter((w) => w !== '').length;
  return { content: `${path}: ${words} words`, structured: { path, words } };
}
