/** Typed observer events, emitted only after the events they describe are committed. */
import type { KowalskiError } from '../core/index.js';
import type { RunState } from '../actors/index.js';
import type { StoredEvent } from './store/events.js';
import type { ChatState } from '../actors/index.js';
import type { StoredChatEvent } from './chat/chat-events.js';
import { messageOf } from '../core/index.js';
import type { ChatToken, StepProgress, TraceRecorded, WorkProgress } from '../contract/frames.js';

export interface EngineEventMap {
  /** A committed event, with the run's state right after it. */
  'run:event': { stored: StoredEvent; state: RunState };
  'step:progress': StepProgress;
  /** A model call of a step was recorded (traces are not run events: they are kept beside the log). */
  'trace:recorded': TraceRecorded;
  /** A committed event of a chat session, with the session's state right after it. */
  'chat:event': { stored: StoredChatEvent; state: ChatState };
  /** On a shared store: an event another node committed into a chat session, with the session's state as read after it (for followers: nothing here acts on it). */
  'chat:heard': { stored: StoredChatEvent; state: ChatState };
  /** A piece of a chat answer as the model streams it (not stored: the answer is, once the call ends). */
  'chat:token': ChatToken;
  /** A commit failed: the engine refuses all further work (memory is ahead of the disk). */
  'engine:stopped': { error: KowalskiError };
  /** A horde folder under `<data>/hordes/` was added, edited or removed, and the catalog re-read (hot reload). */
  'catalog:changed': Record<string, never>;
  /** The agent profiles changed: a file under `<data>/team/` was added, edited or removed (hot reload), or one was saved or removed. */
  'team:changed': Record<string, never>;
  /** The vault's keyword index took these notes in (changed, added or removed; paths relative to the vault): after a rescan, a watched edit or a write. */
  'vault:indexed': { paths: string[] };
  /** An adapter's status changed (started, stopped, failed, a message): the app re-reads `GET /api/adapters`. */
  'adapters:changed': Record<string, never>;
  /** A plugin was granted or revoked, the plugins were rescanned, or a plugin's process failed: the app re-reads `GET /api/plugins`. */
  'plugins:changed': Record<string, never>;
  /** Long work an operator asked for (`engine.work`: a vault reindex, a plugin rescan) got further, or finished. */
  'work:progress': WorkProgress;
  /** config.toml was edited by hand and read again (`engine.watchConfig`). */
  'config:reloaded': { file: string };
  /** Something went wrong outside any run (a listener threw, a checkpoint failed). */
  'engine:warning': { message: string };
}

type Listener<K extends keyof EngineEventMap> = (payload: EngineEventMap[K]) => void;

export class Observers {
  private readonly listeners: { [K in keyof EngineEventMap]: Set<Listener<K>> } = {
    'run:event': new Set(),
    'step:progress': new Set(),
    'trace:recorded': new Set(),
    'chat:event': new Set(),
    'chat:heard': new Set(),
    'chat:token': new Set(),
    'catalog:changed': new Set(),
    'team:changed': new Set(),
    'config:reloaded': new Set(),
    'vault:indexed': new Set(),
    'adapters:changed': new Set(),
    'plugins:changed': new Set(),
    'work:progress': new Set(),
    'engine:warning': new Set(),
    'engine:stopped': new Set(),
  };

  on<K extends keyof EngineEventMap>(name: K, fn: Listener<K>): () => void {
    this.listeners[name].add(fn);
    return () => void this.listeners[name].delete(fn);
  }

  /** A listener that throws never reaches the engine; it is reported as a warning. */
  emit<K extends keyof EngineEventMap>(name: K, payload: EngineEventMap[K]): void {
    for (const fn of this.listeners[name]) {
      try {
        fn(payload);
      } catch (err) {
        if (name !== 'engine:warning') this.emit('engine:warning', { message: `a ${name} listener threw: ${messageOf(err)}` });
      }
    }
  }
}
