/**
 * Adapters: inbound channels (a signed webhook, Slack, Discord, email) that turn a message
 * into a durable chat turn with the agent named in `[adapters.<name>] agent` and send the
 * answer back the same way; and the calendar, which gives agents tools. One registry holds
 * every adapter's status; the host (`engine.adapters`) keeps the durable record of every
 * inbound message, so a message is answered once although the channel redelivers it and
 * although the engine was killed between taking it and replying.
 */
import type { Tool } from '../../agents/index.js';
import type { AdapterType } from '../../contract/adapters.js';
export type { AdapterState, AdapterStatus, AdapterType } from '../../contract/adapters.js';

/** The adapters kowalski has. A configured `[adapters.<name>]` section picks one with `type` (default: its name). */
export const ADAPTER_TYPES = ['webhook', 'slack', 'discord', 'email', 'calendar', 'plugin'] as const satisfies readonly AdapterType[];
/** Compiles only while ADAPTER_TYPES lists every AdapterType. */
type _EveryAdapterType<T extends never = Exclude<AdapterType, (typeof ADAPTER_TYPES)[number]>> = T;

/** One message from a channel, as the host records it. */
export interface InboundMessage {
  /** The channel's own id of this delivery (Slack `event_id`, Discord interaction id, email Message-ID, the webhook's delivery id). */
  deliveryId: string;
  /**
   * More keys the same message may come back under (Slack: `msg:<channel>:<ts>`, since Slack redelivers
   * a message under a new event id). A message whose delivery id or any key was already taken is a duplicate.
   */
  dedupeKeys?: readonly string[];
  /** Messages of one conversation share a chat session (a Slack thread, an email thread, a webhook's `conversation`). */
  conversation: string;
  /** Who sent it, as the channel names them (for the transcript and the audit). */
  from: string;
  text: string;
  /** What the adapter needs to send the answer back (a thread ts, a Discord token, the email headers), kept with the record as JSON. */
  replyTo: Record<string, unknown>;
}

export type InboundState = 'received' | 'answering' | 'answered' | 'replied' | 'failed' | 'ignored';

/** The durable record of one inbound message. */
export interface InboundRecord {
  id: number;
  adapter: string;
  deliveryId: string;
  conversation: string;
  from: string;
  text: string;
  replyTo: Record<string, unknown>;
  state: InboundState;
  sessionId: string | null;
  turn: number | null;
  /** The agent's answer, once its turn finished. */
  answer: string | null;
  /** Reply sends tried (a failed send is tried again, bounded). */
  replyAttempts: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Accepted {
  /** `duplicate`: the delivery id or a dedupe key was taken before; nothing new happens. */
  status: 'accepted' | 'duplicate';
  record: InboundRecord;
  /** Resolves with the record once the reply was sent (or the answer recorded, for adapters that reply in the request). */
  done: Promise<InboundRecord>;
}

/** What the host gives an adapter (`S`: its settings, as its definition reads them). */
export interface AdapterHost<S = unknown> {
  /**
   * Record the message (committed before this returns) and start its chat turn. A message already
   * taken is a duplicate. Safe to call before answering the channel's request: the turn is durable,
   * so a restart still answers it.
   */
  accept(message: InboundMessage): Accepted;
  /** Something happened (a poll, a message): `last_activity_at`. */
  activity(): void;
  /** Record an error without stopping (a poll failed): counted, shown as the last error. */
  failed(err: unknown): void;
  now(): number;
  /** Injected timers: never the real clock's `setTimeout` in engine code. */
  setTimeout(fn: () => void, ms: number): { cancel(): void };
  /**
   * Its settings as the config.toml file holds them at this moment (read again at each call,
   * a hand edit included), read by its definition's `settings()` — for what must be checked at
   * every use, not only at start (the calendar's `write`). Throws KW_ERR_ADAPTER_CONFIG when
   * they became bad or the section is gone, KW_ERR_CONFIG_INVALID when the file is.
   */
  currentSettings(): S;
  /**
   * Adapter `adapter` of plugin `plugin` (a `type = "plugin"` adapter): its calls run in the plugin's
   * process under its grants. Throws KW_ERR_PLUGIN_NOT_FOUND, KW_ERR_PLUGIN_NOT_GRANTED, or
   * KW_ERR_PLUGIN_ADAPTER when the plugin declares no such adapter; absent where there are no plugins.
   */
  pluginAdapter?(plugin: string, adapter: string): PluginAdapterCalls;
}

/** A plugin's adapter, as the engine's plugins give it (engine/plugins' PluginAdapterLink). */
export interface PluginAdapterCalls {
  /** `receive` (an inbound request) or `send` (an answer back): resolves with what the plugin's method returned. */
  call(method: 'receive' | 'send', args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/** A message a horde's `send` step delivers through an adapter (not an answer: nobody wrote to us first). */
export interface OutboundMessage {
  /** Whom it goes to, as the service names them: a Slack channel (`C0123…`, `#trading`), a mail address. */
  to: string;
  text: string;
  /** Mail only: the subject (default: the first line of the text, cut). */
  subject?: string;
  /** The same for every attempt of one delivery (`run:<run id>:<step>`): a service that takes an id of its own (a mail's Message-ID) is given one made from it. */
  key: string;
}

/** What the service said of a delivered message. */
export interface OutboundReceipt {
  /** Its id there: Slack's `ts`, the mail's Message-ID. */
  messageId?: string;
}

/** The engine side of one adapter type. */
export interface AdapterDefinition<S = Record<string, unknown>> {
  type: AdapterType;
  /**
   * Check and read `[adapters.<name>]` (secrets may come from the environment: `<key>_env = "NAME"`).
   * Throws KW_ERR_ADAPTER_CONFIG naming the key.
   */
  settings(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, name: string): S;
  /** The keys of its settings that are secrets (never shown back). */
  secretKeys: readonly string[];
  /** Start it (lazily import what it needs here). A throw makes it `error`, never `running`. */
  start(settings: S, host: AdapterHost<S>): Promise<AdapterInstance>;
  /**
   * Deliver one message of a horde's `send` step, with the settings config.toml holds now.
   * It needs no started adapter (a `kowalski run` without the server starts none): Slack
   * posts with the bot token, email sends over its SMTP server, each once per call. Throws
   * KW_ERR_SEND_REFUSED when the service refused it (nothing was delivered); any other throw
   * means the outcome is not known. Absent: the type sends nothing of its own
   * (KW_ERR_ADAPTER_NO_OUTBOUND).
   */
  send?(settings: S, message: OutboundMessage, host: Pick<AdapterHost<S>, 'setTimeout'>): Promise<OutboundReceipt>;
}

export interface AdapterInstance {
  /** Send the agent's answer back to where the message came from. A throw is recorded and tried again (bounded). */
  reply?(record: InboundRecord, answer: string): Promise<void>;
  /**
   * Tell where the message came from that no answer will come (its turn failed), for a channel
   * that shows the message as waiting (Discord's "thinking…"). Tried once, after the record is `failed`.
   */
  replyFailed?(record: InboundRecord, notice: string): Promise<void>;
  /** Tools it gives agents (the calendar). */
  tools?(): readonly Tool[];
  stop(): Promise<void>;
}
