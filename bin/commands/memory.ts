/**
 * `kowalski memory consolidate [--since 24h] [--agent NAME] [--json]`: the chat turns
 * finished since then turned into durable facts, kept as notes under the vault's
 * `memory/` (engine/chat/consolidate.ts). Through the server that owns the data directory
 * (`POST /api/memory/consolidate`), else with an engine of its own.
 */
import { KowalskiError } from '../../core/index.js';
import type { ConsolidateResult } from '../../engine/index.js';
import { openEngine } from './backend.js';
import { EXIT, dataDir } from './common.js';
import { findServer } from './remote.js';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `24h`, `7d` → ms; KW_ERR_USAGE otherwise. */
export function parseSince(text: string): number {
  const m = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (m === null || Number(m[1]) === 0) throw new KowalskiError('KW_ERR_USAGE', `--since takes a time back from now such as 30m, 24h or 7d, not ${JSON.stringify(text)}`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export async function memoryConsolidateCommand(opts: { since?: string; agent?: string; json?: boolean }): Promise<number> {
  const back = parseSince(opts.since ?? '24h');
  const result = await consolidated({ since: Date.now() - back, ...(opts.agent === undefined ? {} : { agent: opts.agent }) });
  if (opts.json === true) process.stdout.write(`${JSON.stringify(result)}\n`);
  else if (result.turns === 0) process.stdout.write(`No chat turns finished in the last ${opts.since ?? '24h'}${opts.agent === undefined ? '' : ` with ${opts.agent}`}: nothing to consolidate.\n`);
  else {
    const lines = result.facts.map((f) => `  ${f.path}  ${f.fact}`);
    process.stdout.write(`Read ${result.turns} turn(s)${result.leftOut > 0 ? ` (${result.leftOut} more left out: run again with a shorter --since)` : ''}; kept ${result.facts.length} fact(s) (trace ${result.traceId}):\n${lines.join('\n')}\n`);
  }
  return EXIT.ok;
}

/** Consolidate through the server that owns the data directory, else with an engine of this process's own. */
async function consolidated(asked: { since: number; agent?: string }): Promise<ConsolidateResult> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') return lookup.api.request<ConsolidateResult>('POST', 'api/memory/consolidate', asked);
  const engine = await openEngine(dir, lookup);
  try {
    return await engine.chat.consolidate(asked);
  } finally {
    await engine.close();
  }
}
