/** get_file_first_lines: the first lines of a text file inside the file tools' root; 1.x `fs_tool`'s `get_file_first_lines`. */
import type { Tool } from '../types.js';
import { resolveToolPath } from './file-root.js';
import type { FileToolOptions } from './file-root.js';
import { DEFAULT_MAX_READ_BYTES, readTextSlice, utf8Boundary } from './read-file.js';

/** Lines given when the call names no count (1.x's default). */
const DEFAULT_LINES = 10;
/** Most lines one call gives. */
const MAX_LINES = 2000;

export function createFirstLines(options: FileToolOptions): Tool {
  const root = options.rootName ?? 'tools folder';
  const limit = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  return {
    idempotent: true,
    spec: {
      name: 'get_file_first_lines',
      description: `The first lines of a text file inside the ${root} (path relative to it): ${DEFAULT_LINES} unless num_lines says otherwise, at most ${MAX_LINES}.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: `File relative to the ${root}, e.g. "src/main.rs"` },
          num_lines: { type: 'integer', minimum: 1, maximum: MAX_LINES, description: `Lines to give (default ${DEFAULT_LINES})` },
        },
        required: ['path'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const input = String(args.path);
      const want = typeof args.num_lines === 'number' ? args.num_lines : DEFAULT_LINES;
      const file = await resolveToolPath(options, input, 'read');
      const { buf, size } = await readTextSlice(file, 0, limit, ctx.signal);
      const text = buf.subarray(0, buf.length < size ? utf8Boundary(buf, buf.length) : buf.length).toString('utf8');
      const lines = text.split('\n').slice(0, want);
      return { content: lines.join('\n'), meta: { path: input, lines: lines.length, size } };
    },
  };
}
