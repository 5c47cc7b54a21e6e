/**
 * The file tool sets. `createFileTools`: list_dir, read_file and write_file confined to
 * the tools folder chosen in Setup. `createFsToolSet`: what a 1.x `fs_tool` step is
 * offered, the same tools (plus get_file, mkdir, get_file_first_lines, with 1.x's
 * argument names) confined to another root, the run's project folder (see file-root.ts).
 */
import type { Tool } from '../types.js';
import type { FileToolOptions } from './file-root.js';
import { createFirstLines } from './first-lines.js';
import { createListDir } from './list-dir.js';
import { createMkdir } from './mkdir.js';
import { createReadFile } from './read-file.js';
import { createWriteFile } from './write-file.js';

export type { FileToolOptions } from './file-root.js';

/** list_dir, read_file and write_file. They exist even with no root set: a call then fails with KW_ERR_FILE_ROOT_UNSET. */
export function createFileTools(options: FileToolOptions): Tool[] {
  return [createListDir(options), createReadFile(options), createWriteFile(options)];
}

/** The names of the 1.x `fs_tool` set, in the order they are offered. */
export const FS_TOOL_NAMES: readonly string[] = ['list_dir', 'read_file', 'get_file', 'write_file', 'mkdir', 'get_file_first_lines'];

/** 1.x `fs_tool` over `options.root`, which must exist: absolute paths inside the root are taken too, as 1.x took them. */
export function createFsToolSet(options: FileToolOptions): Tool[] {
  const o: FileToolOptions = { ...options, absoluteInside: true, createRoot: false };
  return [createListDir(o), createReadFile(o), createReadFile(o, 'get_file'), createWriteFile(o), createMkdir(o), createFirstLines(o)];
}
