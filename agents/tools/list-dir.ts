/** list_dir: the entries of a folder inside the tools folder (or another root, see file-root.ts), with type and size, bounded. */
import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { Tool } from '../types.js';
import { resolveToolPath } from './file-root.js';
import type { FileToolOptions } from './file-root.js';

/** Entries shown per call; a folder with more gets a note saying how many were left out. */
const MAX_ENTRIES = 500;

function describe(name: string, st: Stats): string {
  if (st.isDirectory()) return `${name}/ (folder)`;
  if (st.isFile()) return `${name} (file, ${st.size} bytes)`;
  if (st.isSymbolicLink()) return `${name} (symlink)`;
  return `${name} (other)`;
}

export function createListDir(options: FileToolOptions): Tool {
  const root = options.rootName ?? 'tools folder';
  return {
    idempotent: true,
    spec: {
      name: 'list_dir',
      description: `List a folder inside the ${root}: each entry with its type and size in bytes. Paths are relative to the ${root}; "." (the default) is its top.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: `Folder relative to the ${root}, e.g. "reports"; default "."` },
          max_entries: { type: 'integer', minimum: 1, maximum: MAX_ENTRIES, description: `Entries to show (default and most: ${MAX_ENTRIES})` },
        },
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const input = typeof args.path === 'string' && args.path !== '' ? args.path : '.';
      const dir = await resolveToolPath(options, input, 'read');
      if (!dir.stat!.isDirectory()) {
        throw new KowalskiError('KW_ERR_TOOL_FAILED', `${JSON.stringify(input)} is a file, not a folder; use read_file to read it`);
      }
      ctx.signal.throwIfAborted();
      const names = (await readdir(dir.real)).sort();
      const shown = names.slice(0, typeof args.max_entries === 'number' ? Math.min(args.max_entries, MAX_ENTRIES) : MAX_ENTRIES);
      const lines: string[] = [];
      for (const name of shown) {
        ctx.signal.throwIfAborted();
        try {
          lines.push(`- ${describe(name, await lstat(path.join(dir.real, name)))}`);
        } catch (err) {
          // Removed between readdir and lstat: it is simply no longer there.
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      const header = names.length === 0 ? `${JSON.stringify(input)} is empty.` : `${JSON.stringify(input)} holds ${names.length} entries:`;
      const note = names.length > shown.length
        ? `\n(${names.length - shown.length} more entries not shown: the first ${shown.length} by name are listed; list a subfolder to narrow down)`
        : '';
      return {
        content: [header, ...lines].join('\n') + note,
        meta: { path: input, entries: names.length, shown: lines.length },
      };
    },
  };
}
