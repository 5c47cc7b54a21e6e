/**
 * Reading one Markdown file of a horde: its front matter as checked `Fields`, and its body.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { splitFrontMatter } from './frontmatter.js';
import { Fields } from './fields.js';
import { Source } from './problems.js';
import type { ProblemList } from './problems.js';
import { messageOf } from '../../core/index.js';

/** Max bytes of one horde Markdown file. */
export const MAX_MD_BYTES = 1024 * 1024;

export type ReadMd = { status: 'ok'; fields: Fields; body: string } | { status: 'missing' } | { status: 'bad' };

/**
 * The lower-cased names in `<dir>/agents/`, read once: a pipeline step whose file is not
 * among them is missing without a look of its own (a long pipeline of missing steps costs
 * one listing, not one stat each). Undefined when the folder cannot be listed (then each
 * file is looked up). Lower-cased, so a case-insensitive file system is not second-guessed.
 */
export async function agentFileNames(dir: string): Promise<ReadonlySet<string> | undefined> {
  try {
    return new Set((await fs.readdir(path.join(dir, 'agents'))).map((n) => n.toLowerCase()));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? new Set() : undefined;
  }
}

/**
 * Read `rel` (relative to `dir`, `/`-separated). A missing file is `missing` and reported
 * by the caller (who knows what it was for); anything else wrong is reported here as
 * KW_ERR_FRONT_MATTER and is `bad`.
 */
export async function readMarkdown(dir: string, rel: string, problems: ProblemList): Promise<ReadMd> {
  const abs = path.join(dir, ...rel.split('/'));
  let text: string;
  try {
    const stat = await fs.stat(abs);
    if (!stat.isFile()) return { status: 'missing' };
    if (stat.size > MAX_MD_BYTES) {
      problems.error('KW_ERR_FRONT_MATTER', { file: rel }, `is ${stat.size} bytes; a horde file may hold at most ${MAX_MD_BYTES}`);
      return { status: 'bad' };
    }
    text = await fs.readFile(abs, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    problems.error('KW_ERR_FRONT_MATTER', { file: rel }, `cannot be read: ${messageOf(err)}`);
    return { status: 'bad' };
  }
  const split = splitFrontMatter(text);
  if (!split.ok) {
    problems.error('KW_ERR_FRONT_MATTER', { file: rel, line: split.line }, split.message);
    return { status: 'bad' };
  }
  const source = new Source(rel, split.value.toml, split.value.tomlStartLine);
  return { status: 'ok', fields: new Fields(split.value.data, source, problems), body: split.value.body };
}
