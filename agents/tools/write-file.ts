/**
 * write_file: a text file inside the tools folder, written whole through a temp file and a
 * rename, so a reader (or a crash) sees the old file or the new one, never half of one.
 * The rename replaces a directory entry and never follows a link, and the temp file is
 * opened exclusive (`wx`), so neither step writes through a symlink planted meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { Tool } from '../types.js';
import { resolveToolPath } from './file-root.js';
import type { FileToolOptions } from './file-root.js';

export const DEFAULT_MAX_WRITE_BYTES = 1024 * 1024;

export function createWriteFile(options: FileToolOptions): Tool {
  const limit = options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES;
  const root = options.rootName ?? 'tools folder';
  return {
    spec: {
      name: 'write_file',
      description: `Write a text file inside the ${root} (path relative to it), replacing it if it exists and creating missing folders. At most ${limit} bytes.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: `File relative to the ${root}, e.g. "reports/summary.md"` },
          content: { type: 'string', description: 'The whole new content of the file' },
        },
        required: ['path', 'content'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const input = String(args.path);
      const data = Buffer.from(String(args.content), 'utf8');
      if (data.length > limit) {
        throw new KowalskiError('KW_ERR_FILE_TOO_LARGE', `${JSON.stringify(input)}: the content is ${data.length} bytes, over write_file's limit of ${limit}; split it into several smaller files`);
      }
      const target = await resolveToolPath(options, input, 'write');
      if (target.stat !== null && !target.stat.isFile()) {
        throw new KowalskiError('KW_ERR_TOOL_FAILED', `${JSON.stringify(input)} exists and is not a file (${target.stat.isDirectory() ? 'a folder' : 'a special file'}); write to another path`);
      }
      ctx.signal.throwIfAborted();
      const dir = path.dirname(target.real);
      await mkdir(dir, { recursive: true });
      ctx.signal.throwIfAborted();
      const temp = path.join(dir, `.kw-write-${randomBytes(6).toString('hex')}.tmp`);
      try {
        const fh = await open(temp, 'wx');
        try {
          if (target.stat !== null) await fh.chmod(target.stat.mode & 0o777);
          await fh.writeFile(data);
          await fh.sync();
        } finally {
          await fh.close();
        }
        ctx.signal.throwIfAborted();
        await rename(temp, target.real);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      const verb = target.stat === null ? 'created' : 'replaced';
      return {
        content: `Wrote ${data.length} bytes to ${JSON.stringify(input)} (${verb}).`,
        meta: { path: input, bytes: data.length, created: target.stat === null },
      };
    },
  };
}
