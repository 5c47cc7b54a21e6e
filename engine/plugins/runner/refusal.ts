/**
 * A plugin's error as the engine reports it. Node's permission refusal (ERR_ACCESS_DENIED,
 * with the permission and the resource) becomes KW_ERR_PLUGIN_PERMISSION naming what the
 * plugin tried and the grant it lacks; the codes the engine itself gave the plugin's
 * `kowalski.fetch` keep theirs; anything else the tool threw is KW_ERR_TOOL_FAILED.
 */
import { KowalskiError } from '../../../core/index.js';
import type { ErrorCode } from '../../../core/index.js';
import type { WireError } from './protocol.js';

/** Node's permission scopes: what the plugin tried, and the manifest key that grants it. */
const SCOPES: Record<string, { verb: string; grant: string }> = {
  FileSystemRead: { verb: 'read', grant: 'fs.read' },
  FileSystemWrite: { verb: 'write', grant: 'fs.write' },
  FileSystem: { verb: 'use the file system at', grant: 'fs.read / fs.write' },
  ChildProcess: { verb: 'start a child process', grant: 'exec' },
  WorkerThreads: { verb: 'start a worker thread', grant: 'exec' },
};

/** Codes a plugin's call may end with as they are: they come from the engine's answers to its fetches, or its size check. */
const PASSED_THROUGH = new Set<ErrorCode>(['KW_ERR_PLUGIN_PERMISSION', 'KW_ERR_PLUGIN_RESULT_LIMIT', 'KW_ERR_FETCH_BLOCKED', 'KW_ERR_FETCH_FAILED', 'KW_ERR_FETCH_LIMIT']);

export function permissionError(plugin: string, tried: string, grant: string): KowalskiError {
  return new KowalskiError('KW_ERR_PLUGIN_PERMISSION', `plugin ${plugin} may not ${tried} (${grant} not granted)`);
}

/** The error a call (or the start) ends with, from what the plugin's side sent; `what` names the callee (`tool greet`, `adapter relay's receive`). */
export function pluginError(plugin: string, what: string | undefined, error: WireError): KowalskiError {
  if (error.code === 'ERR_ACCESS_DENIED') {
    const scope = SCOPES[error.permission ?? ''] ?? { verb: `use ${error.permission ?? 'a refused API'} on`, grant: 'it' };
    const resource = error.resource === undefined || error.resource === '' ? '' : ` ${error.resource}`;
    return permissionError(plugin, `${scope.verb}${resource}`, scope.grant);
  }
  const where = what === undefined ? `plugin ${plugin}` : `plugin ${plugin}: ${what}`;
  if (PASSED_THROUGH.has(error.code as ErrorCode)) return new KowalskiError(error.code as ErrorCode, error.code === 'KW_ERR_PLUGIN_PERMISSION' ? error.message : `${where}: ${error.message}`);
  return new KowalskiError('KW_ERR_TOOL_FAILED', `${where}: ${error.message}`);
}
