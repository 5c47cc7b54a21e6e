/**
 * The folder a Rookery tool call names (`output_root`), kept inside the server's
 * `--output-root`: a relative path with no `..` (an absolute path, `~`, or `..` is refused
 * before the disk is looked at), an existing folder, and — links followed with realpath —
 * still inside the root's own realpath. The call then works in that real folder, so a link
 * swapped in after the check is not followed either.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import { checkRelative, isWithin } from '../../steps/index.js';

/**
 * The folder for a call: `root` when `given` is missing or blank, else `root/<given>` as its
 * realpath. Throws KW_ERR_PATH_ESCAPES (absolute, `..`, or a link leading out of `root`) or
 * KW_ERR_USAGE (no such folder), each naming `arg`.
 */
export async function confinedFolder(root: string, given: string | undefined, arg: string): Promise<string> {
  if (given === undefined || given.trim() === '') return root;
  const rel = checkRelative(given.trim(), 'KW_ERR_PATH_ESCAPES', arg);
  if (rel.includes('\0')) throw new KowalskiError('KW_ERR_PATH_ESCAPES', `${arg} holds a NUL character`);
  const abs = path.join(root, rel);
  const real = await fs.realpath(abs).catch(() => undefined);
  const isDir = real !== undefined && (await fs.stat(real).then((s) => s.isDirectory(), () => false));
  if (real === undefined || !isDir) throw new KowalskiError('KW_ERR_USAGE', `${arg} \`${given}\` is not a folder under ${root}`);
  const realRoot = await fs.realpath(root).catch(() => path.resolve(root));
  if (!isWithin(realRoot, real)) {
    throw new KowalskiError('KW_ERR_PATH_ESCAPES', `${arg} \`${given}\` leads outside ${root} (through a link, to ${real})`);
  }
  return real;
}
