/** The three file tools, all confined to the tools folder chosen in Setup (see file-root.ts). */
import type { Tool } from '../types.js';
import type { FileToolOptions } from './file-root.js';
import { createListDir } from './list-dir.js';
import { createReadFile } from './read-file.js';
import { createWriteFile } from './write-file.js';

export type { FileToolOptions } from './file-root.js';

/** list_dir, read_file and write_file. They exist even with no root set: a call then fails with KW_ERR_FILE_ROOT_UNSET. */
export function createFileTools(options: FileToolOptions): Tool[] {
  return [createListDir(options), createReadFile(options), createWriteFile(options)];
}
