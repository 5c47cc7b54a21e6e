/**
 * Working memory: the earlier turns a chat turn is given, bounded by the profile's window
 * (in tokens, estimated as characters / 4). When they pass it, the oldest turns not yet
 * folded are folded into the session's running summary by one model call (the root
 * agent's model, a fixed prompt, the previous summary and the turns to fold), recorded as
 * `memory.summarized` with its trace row, so a replay never makes the call again. The turn
 * is then given the summary as a system message and the recent turns that fit.
 */
import type { ChatMessage } from '../../agents/index.js';
import type { Exchange } from '../../actors/index.js';

/** Tokens of a text, estimated (≈ 4 characters a token: good enough to bound a window, not to bill). */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** What the assistant said in an exchange, as the next turns see it. */
export const answerOf = (h: Exchange): string => (h.assistant === '' ? `(no answer: the turn ended with ${h.stop})` : h.assistant);

const exchangeTokens = (h: Exchange): number => estimateTokens(h.user) + estimateTokens(answerOf(h));

export const SUMMARY_PROMPT = [
  'You keep the running summary of a conversation between a user and an assistant.',
  'You are given the summary so far (it may be empty) and the next turns of the conversation.',
  'Write the new summary: everything a reader needs to go on with the conversation — the user\'s goals, facts, names, numbers,',
  'decisions, open questions and what the assistant promised — in at most 250 words of plain prose.',
  'Answer with the summary only.',
].join(' ');

/** The turns to fold before this turn (none: `undefined`): the oldest unfolded, until the rest fit in half the window. */
export function foldPlan(earlier: readonly Exchange[], summary: { through: number; text: string } | undefined, windowTokens: number): Exchange[] | undefined {
  const unfolded = earlier.filter((h) => h.turn > (summary?.through ?? 0));
  const total = estimateTokens(summary?.text ?? '') + unfolded.reduce((n, h) => n + exchangeTokens(h), 0);
  if (total <= windowTokens) return undefined;
  // Keep the newest turns that fit in half the window (so the next fold is some turns away); fold the rest.
  let kept = 0;
  let keep = 0;
  for (let i = unfolded.length - 1; i >= 0; i--) {
    const cost = exchangeTokens(unfolded[i]!);
    if (kept + cost > windowTokens / 2) break;
    kept += cost;
    keep += 1;
  }
  const fold = unfolded.slice(0, unfolded.length - keep);
  return fold.length === 0 ? undefined : fold;
}

/** The messages of the summary call. */
export function summaryRequest(previous: string | undefined, fold: readonly Exchange[]): ChatMessage[] {
  const turns = fold.map((h) => `Turn ${h.turn}\nUser: ${h.user}\nAssistant: ${answerOf(h)}`).join('\n\n');
  return [
    { role: 'system', content: SUMMARY_PROMPT },
    { role: 'user', content: `Summary so far:\n${previous === undefined || previous === '' ? '(none)' : previous}\n\nNext turns:\n\n${turns}` },
  ];
}

/** The history a turn is given: the summary (if any) and the turns after it. */
export function historyMessages(earlier: readonly Exchange[], summary: { through: number; text: string } | undefined): ChatMessage[] {
  const recent = earlier.filter((h) => h.turn > (summary?.through ?? 0));
  const head: ChatMessage[] = summary === undefined ? [] : [{ role: 'system', content: `Summary of the earlier conversation (turns 1–${summary.through}): ${summary.text}` }];
  return [...head, ...recent.flatMap((h): ChatMessage[] => [{ role: 'user', content: h.user }, { role: 'assistant', content: answerOf(h) }])];
}
