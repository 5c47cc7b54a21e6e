/** read_file: a text file inside the tools folder (or another root, see file-root.ts), a bounded slice per call. */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { KowalskiError } from '../../core/index.js';
import type { Tool } from '../types.js';
import { resolveToolPath } from './file-root.js';
import type { FileToolOptions, ToolPath } from './file-root.js';

export const DEFAULT_MAX_READ_BYTES = 256 * 1024;

/** Where a cut at `end` would split a UTF-8 character, move it back to the character's start. */
export function utf8Boundary(buf: Buffer, end: number): number {
  for (let i = end - 1; i >= 0 && i >= end - 4; i--) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue;
    const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + len > end ? i : end;
  }
  return end;
}

/**
 * Open a text file the model named (already resolved by resolveToolPath) and read at most
 * `want` bytes from `offset`, refusing folders, special files and binary files.
 */
export async function readTextSlice(file: ToolPath, offset: number, want: number, signal: AbortSignal): Promise<{ buf: Buffer; size: number }> {
  const input = file.input;
  if (file.stat!.isDirectory()) throw new KowalskiError('KW_ERR_TOOL_FAILED', `${JSON.stringify(input)} is a folder; use list_dir to see what it holds`);
  // A FIFO or a device would block or never end: only regular files are read.
  if (!file.stat!.isFile()) throw new KowalskiError('KW_ERR_TOOL_FAILED', `${JSON.stringify(input)} is not a regular file; read_file reads text files only`);
  signal.throwIfAborted();
  const fh = await open(file.real, constants.O_RDONLY | constants.O_NOFOLLOW);
  let buf: Buffer;
  let size: number;
  try {
    size = (await fh.stat()).size;
    buf = Buffer.alloc(Math.max(0, Math.min(want, size - offset)));
    const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
    buf = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  if (buf.includes(0)) {
    throw new KowalskiError('KW_ERR_TOOL_FAILED', `${JSON.stringify(input)} is a binary file (it holds NUL bytes); read_file reads text files only`);
  }
  return { buf, size };
}

/** read_file (or, for a 1.x `fs_tool` step, its alias `get_file`). */
export function createReadFile(options: FileToolOptions, name = 'read_file'): Tool {
  const limit = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  const root = options.rootName ?? 'tools folder';
  return {
    idempotent: true,
    spec: {
      name,
      description: `Read a text file inside the ${root} (path relative to it). Returns at most ${limit} bytes per call; a longer file ends with a note giving the offset to read on from.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: `File relative to the ${root}, e.g. "notes/todo.md"` },
          offset: { type: 'integer', minimum: 0, description: 'Byte to start at (default 0)' },
          max_bytes: { type: 'integer', minimum: 1, maximum: limit, description: `Bytes to read (default and most: ${limit})` },
        },
        required: ['path'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const input = String(args.path);
      const offset = typeof args.offset === 'number' ? args.offset : 0;
      const want = Math.min(typeof args.max_bytes === 'number' ? args.max_bytes : limit, limit);
      const file = await resolveToolPath(options, input, 'read');
      const read = await readTextSlice(file, offset, want, ctx.signal);
      const size = read.size;
      let buf = read.buf;
      const truncated = offset + buf.length < size;
      // A slice too small to hold one whole character is kept as is, so the offset still moves on.
      if (truncated) buf = buf.subarray(0, utf8Boundary(buf, buf.length) || buf.length);
      const end = offset + buf.length;
      const meta = { path: input, size, offset, bytes: buf.length, truncated };
      if (size === 0) return { content: `(${JSON.stringify(input)} is empty: 0 bytes)`, meta };
      if (offset >= size) return { content: `(offset ${offset} is past the end of ${JSON.stringify(input)}, which has ${size} bytes)`, meta };
      const text = buf.toString('utf8');
      if (offset === 0 && !truncated) return { content: text, meta };
      const note = truncated
        ? `[truncated: bytes ${offset}–${end} of ${size} shown; call ${name} with path ${JSON.stringify(input)} and offset ${end} to read on]`
        : `[bytes ${offset}–${end} of ${size}: end of file]`;
      return { content: `${text}\n\n${note}`, meta };
    },
  };
}
