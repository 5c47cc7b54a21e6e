/** mkdir: a folder (and the missing folders above it) inside the file tools' root; 1.x `fs_tool`'s `mkdir`. */
import { mkdir } from 'node:fs/promises';
import { KowalskiError } from '../../core/index.js';
import type { Tool } from '../types.js';
import { resolveToolPath } from './file-root.js';
import type { FileToolOptions } from './file-root.js';

export function createMkdir(options: FileToolOptions): Tool {
  const root = options.rootName ?? 'tools folder';
  return {
    idempotent: true,
    spec: {
      name: 'mkdir',
      description: `Create a folder inside the ${root} (path relative to it), with any missing folders above it. A folder that exists already is fine.`,
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string', description: `Folder relative to the ${root}, e.g. "src/util"` } },
        required: ['path'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const input = String(args.path);
      const target = await resolveToolPath(options, input, 'write');
      if (target.stat !== null && !target.stat.isDirectory()) {
        throw new KowalskiError('KW_ERR_TOOL_FAILED', `${JSON.stringify(input)} exists and is not a folder; choose another name`);
      }
      ctx.signal.throwIfAborted();
      await mkdir(target.real, { recursive: true });
      return { content: `${target.stat === null ? 'Created' : 'Found'} the folder ${JSON.stringify(input)}.`, meta: { path: input, created: target.stat === null } };
    },
  };
}
