/**
 * What a turn's agents are writing right now, from the websocket's chat frames: per node
 * (`r` the root agent, `r/2.0` one it delegated to) the text of its current model call.
 * A node's next model call starts its text afresh; a new turn, or more budget for the
 * stopped one, starts them all afresh. The log has the rest (GET the session).
 */
import type { ChatFrame } from './types.js';

export interface NodeStream { agent: string; text: string }
export interface Streams { turn: number | null; nodes: Readonly<Record<string, NodeStream>> }

export const NO_STREAMS: Streams = { turn: null, nodes: {} };
/** The root agent's node: its tokens form the answer. */
export const ROOT_NODE = 'r';

export function applyChatFrame(s: Streams, frame: ChatFrame): Streams {
  if (frame.type === 'chat-token') {
    const nodes = s.turn === frame.turn ? s.nodes : {};
    const text = (nodes[frame.node]?.text ?? '') + frame.text;
    return { turn: frame.turn, nodes: { ...nodes, [frame.node]: { agent: frame.agent, text } } };
  }
  if (frame.type !== 'chat-event') return s;
  const { type, turn, node } = frame.event;
  switch (type) {
    case 'turn.started':
    case 'budget.granted':
      return { turn: turn ?? null, nodes: {} };
    case 'model.started': {
      if (node === undefined || s.nodes[node] === undefined) return s;
      const { [node]: _ended, ...rest } = s.nodes;
      return { turn: s.turn, nodes: rest };
    }
    default:
      return s;
  }
}
