/**
 * A chat turn's tokens, from the node running it to the other nodes of a Postgres store, so
 * a client following the session through any node sees the answer as it is written (what
 * it sees of the committed events comes through `kw_chat`). Tokens are gathered for a
 * moment (FLUSH_MS) and sent as one notification per session on `kw_chat_tokens`:
 * `<node> <JSON {s: session, t: turn, p: [[node, agent, text], …]}>`, at most PAYLOAD_BYTES
 * each (Postgres takes 8000). Before a session's next commit announces its events, what it
 * gathered goes first, in the same transaction, so every node hears the tokens of a model
 * call before the events after it. Best effort, as the tokens are on one node: a
 * notification lost is text a follower does not see live; the log has the answer.
 */
import type { ChatToken } from '../../../contract/frames.js';
import type { Clock } from '../../base/clock.js';
import type { Timers } from '../../base/timers.js';
import { CHANNELS } from './channels.js';
import type { PgSession } from './session.js';

/** How long tokens are gathered before they go, ms. */
const FLUSH_MS = 25;
/** The most bytes of one notification's payload (Postgres refuses payloads from 8000 bytes). */
const PAYLOAD_BYTES = 7000;
/** The longest text of one piece, in UTF-16 units: at most 1000 × 6 bytes escaped, so one piece always fits. */
const PIECE_CHARS = 1000;

interface Gathered { turn: number; pieces: Array<[node: string, agent: string, text: string]>; bytes: number }

export class PgChatTokens {
  private readonly gathered = new Map<string, Gathered>();
  private cancel: (() => void) | undefined;

  constructor(private readonly deps: { session: PgSession; nodeId: string; clock: Clock; timers: Timers; onError(err: unknown): void }) {}

  /** A token of a turn this node runs. */
  add(token: ChatToken): void {
    let g = this.gathered.get(token.sessionId);
    if (g !== undefined && g.turn !== token.turn) {
      this.flush(token.sessionId);
      g = undefined;
    }
    // Cut a long piece so that every notification stays under the limit. Sizes are of the
    // payload as sent: JSON-escaped (a quote or a line break takes two bytes, a control character six).
    for (let text = token.text; text.length > 0;) {
      const part = text.slice(0, PIECE_CHARS);
      text = text.slice(part.length);
      const piece: Gathered['pieces'][number] = [token.node, token.agent, part];
      const bytes = Buffer.byteLength(JSON.stringify(piece)) + 1;
      if (g !== undefined && g.bytes + bytes > PAYLOAD_BYTES) {
        this.flush(token.sessionId);
        g = undefined;
      }
      if (g === undefined) {
        // The payload around the pieces: `<node> {"s":…,"t":…,"p":[]}`.
        g = { turn: token.turn, pieces: [], bytes: this.deps.nodeId.length + 1 + Buffer.byteLength(JSON.stringify({ s: token.sessionId, t: token.turn, p: [] })) };
        this.gathered.set(token.sessionId, g);
      }
      g.pieces.push(piece);
      g.bytes += bytes;
    }
    this.cancel ??= this.deps.timers.at(this.deps.clock.now() + FLUSH_MS, () => {
      this.cancel = undefined;
      try {
        this.flush();
      } catch (err) {
        this.deps.onError(err);
      }
    });
  }

  /** Send what was gathered: for one session (before its commit, inside the transaction), or all. */
  flush(sessionId?: string): void {
    const ids = sessionId === undefined ? [...this.gathered.keys()] : [sessionId];
    for (const id of ids) {
      const g = this.gathered.get(id);
      if (g === undefined) continue;
      this.gathered.delete(id);
      this.deps.session.write(`SELECT pg_notify('${CHANNELS.chatTokens}', $1)`, [`${this.deps.nodeId} ${JSON.stringify({ s: id, t: g.turn, p: g.pieces })}`]);
    }
  }

  close(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.gathered.clear();
  }
}

/** The tokens of a notification another node sent (none for this node's own, or a payload not understood). */
export function heardTokens(payload: string, nodeId: string): ChatToken[] {
  const space = payload.indexOf(' ');
  if (space < 0 || payload.slice(0, space) === nodeId) return [];
  try {
    const { s, t, p } = JSON.parse(payload.slice(space + 1)) as { s: string; t: number; p: Array<[string, string, string]> };
    return p.map(([node, agent, text]) => ({ sessionId: s, turn: t, node, agent, text }));
  } catch {
    return [];
  }
}
