/** Our messages as a provider's turns: the system text apart, the rest as blocks in alternating user and assistant turns. */
import type { ChatMessage } from '../types.js';

export type TurnMessage = Exclude<ChatMessage, { role: 'system' }>;

export interface Turns<B> {
  /** The system messages joined by a blank line; undefined when there are none. */
  system: string | undefined;
  turns: Array<{ role: 'user' | 'assistant'; blocks: B[] }>;
}

/**
 * `blocksOf` gives each other message's blocks (none: the message is left out); a tool
 * result belongs to a user turn. Adjacent turns of the same role are merged, because the
 * APIs want every result of a turn's tool calls in the one user turn that follows it.
 */
export function toTurns<B>(messages: ChatMessage[], blocksOf: (m: TurnMessage) => B[]): Turns<B> {
  const system: string[] = [];
  const turns: Turns<B>['turns'] = [];
  for (const m of messages) {
    if (m.role === 'system') {
      system.push(m.content);
      continue;
    }
    const blocks = blocksOf(m);
    if (blocks.length === 0) continue;
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const last = turns.at(-1);
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  }
  return { system: system.length === 0 ? undefined : system.join('\n\n'), turns };
}
