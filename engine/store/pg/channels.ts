/** The channels of a Postgres store's wake-ups (listener.ts): each payload is only a hint, what it announces is read from the tables. */
export const CHANNELS = {
  /** Events were committed; payload: the committing node's id. */
  log: 'kw_log',
  /** Leases were given up (a node stopped); payload: that node's id. */
  leases: 'kw_leases',
  /** A request was left for a node; payload: that node's id. */
  requests: 'kw_requests',
  /** A request was answered; payload: its id. */
  answers: 'kw_answers',
  /** A chat session's log grew; payload: `<node> <session> <first seq> <last seq>`. */
  chat: 'kw_chat',
  /** A turn's tokens as its model writes them; payload: `<node> <JSON>` (chat-tokens.ts). */
  chatTokens: 'kw_chat_tokens',
  /** A plugin was granted or revoked; payload: the node's id. */
  plugins: 'kw_plugins',
} as const;

export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

