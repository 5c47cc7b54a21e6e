/**
 * The memories given to the model before a turn: the vault's `memory/` notes that best
 * match the user's message (the profile's `memories` of them), as one marked system
 * message. Which ones is recorded in the turn's log (`memory.recalled`), so a replay
 * gives the same block and the trace shows exactly what the model saw.
 */
import type { ChatMessage } from '../../agents/index.js';
import type { EventError, InjectedMemory } from '../../actors/index.js';
import { KowalskiError, isErrorCode, messageOf } from '../../core/index.js';
import { MEMORY_FOLDER } from './remember.js';
import type { MemoryVault } from './remember.js';

/** Longest text of one injected memory, in characters. */
const MAX_MEMORY_CHARS = 600;

/** The notes to give before a turn whose message is `text`; a failed search is an error, not a throw (the turn goes on without them). */
export async function findMemories(vault: MemoryVault, text: string, count: number): Promise<{ memories: InjectedMemory[]; error?: EventError }> {
  try {
    const answer = await vault.search(text, { under: MEMORY_FOLDER, limit: count, semantic: 'auto' });
    const memories = answer.hits.slice(0, count).map((hit) => {
      const full = memoryText(vault, hit.path) ?? hit.snippet.replace(/[[\]]/g, '').replace(/\s+/g, ' ').trim();
      return { path: hit.path, text: full.length <= MAX_MEMORY_CHARS ? full : `${full.slice(0, MAX_MEMORY_CHARS - 1)}…` };
    });
    return { memories };
  } catch (err) {
    const code = err instanceof KowalskiError ? err.code : (err as { code?: unknown } | null)?.code;
    return { memories: [], error: { code: isErrorCode(code) ? code : 'KW_ERR_INTERNAL', message: messageOf(err) } };
  }
}

/** A memory note's text without its title line (a fact's note repeats it), on one line; undefined when it cannot be read (the snippet stands in). */
function memoryText(vault: MemoryVault, path: string): string | undefined {
  try {
    const text = vault.read(path).content.replace(/^# [^\n]*\n/, '').replace(/\s+/g, ' ').trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The marked block the model is given (none when there are no memories). */
export function memoryBlock(memories: readonly InjectedMemory[]): ChatMessage | undefined {
  if (memories.length === 0) return undefined;
  const lines = memories.map((m) => `- (${m.path}) ${m.text}`);
  return {
    role: 'system',
    content: `<memories>\nNotes you kept earlier that may bear on this message (use them if they help; they may be out of date):\n${lines.join('\n')}\n</memories>`,
  };
}
