/** The shapes `kowalski chat` shares between its backends (chat-backend.ts, chat-remote.ts), its loop and its printing. */
import type { ChatSessionSummary, StoredChatEvent, TurnOutcome, TurnView } from '../../engine/index.js';

export type ChatEvent = StoredChatEvent['event'];
export type ChatSession = ChatSessionSummary & { transcript: TurnView[] };
export interface TokenPiece {
  node: string;
  agent: string;
  text: string;
}

/** Told what a turn does while it runs. */
export interface TurnWatch {
  onToken(piece: TokenPiece): void;
  onEvent(event: ChatEvent): void;
}

export interface AgentBrief {
  name: string;
  description: string;
}

export interface ChatBackend {
  agents(): Promise<AgentBrief[]>;
  create(agent: string, title: string): Promise<ChatSessionSummary>;
  get(id: string): Promise<ChatSession>;
  /** Send a message and follow its turn to the end. */
  send(id: string, text: string, watch: TurnWatch): Promise<TurnOutcome>;
  /** Grant more model calls (the configured default when undefined) to a turn its budget stopped, and follow it to the end. */
  grant(id: string, extra: number | undefined, watch: TurnWatch): Promise<TurnOutcome>;
  /** Follow the turn under way in the session to its end; undefined when none is. */
  resume(id: string, watch: TurnWatch): Promise<TurnOutcome | undefined>;
  /** What becomes of a turn left mid-way (Ctrl-C). */
  leftNote(id: string): string;
  close(): Promise<void>;
}

/** `kowalski chat`'s options. */
export interface ChatOptions {
  agent?: string;
  session?: string;
  message?: string;
  json?: boolean;
  dataDir?: string;
}
