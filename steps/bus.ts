/**
 * The step bus: one BroadcastChannel per runner, shared by every step of every pool
 * thread, each message addressed by the step's token. It replaces a MessagePort per step:
 * creating and transferring a port cost more than the rest of a short step's trip.
 * The engine posts `{to, message}`; a step posts `{from, message}`; each side ignores
 * the other kind (and tokens it does not know).
 */
import crypto from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import type { EngineMessage, StepMessage } from './protocol.js';

export type BusEnvelope = { to: string; message: EngineMessage } | { from: string; message: StepMessage };

/** The engine's end. */
export class StepBus {
  readonly name = `kowalski-steps-${process.pid}-${crypto.randomUUID()}`;
  private readonly channel = new BroadcastChannel(this.name);
  private readonly listeners = new Map<string, (message: StepMessage) => void>();

  constructor() {
    this.channel.unref();
    this.channel.onmessage = (event) => {
      const envelope = (event as { data: BusEnvelope }).data;
      if ('from' in envelope) this.listeners.get(envelope.from)?.(envelope.message);
    };
  }

  /** Hear what the step with `token` says, until the returned function is called. */
  listen(token: string, listener: (message: StepMessage) => void): () => void {
    this.listeners.set(token, listener);
    return () => void this.listeners.delete(token);
  }

  send(token: string, message: EngineMessage): void {
    this.channel.postMessage({ to: token, message } satisfies BusEnvelope);
  }

  close(): void {
    this.channel.close();
  }
}

/** A pool thread's end: one channel per bus name, many steps at once. */
export class StepBusClient {
  private readonly channel: BroadcastChannel;
  private readonly handlers = new Map<string, (message: EngineMessage) => void>();

  constructor(name: string) {
    this.channel = new BroadcastChannel(name);
    this.channel.unref();
    this.channel.onmessage = (event) => {
      const envelope = (event as { data: BusEnvelope }).data;
      if ('to' in envelope) this.handlers.get(envelope.to)?.(envelope.message);
    };
  }

  post(token: string, message: StepMessage): void {
    this.channel.postMessage({ from: token, message } satisfies BusEnvelope);
  }

  onMessage(token: string, handler: (message: EngineMessage) => void): void {
    this.handlers.set(token, handler);
  }

  forget(token: string): void {
    this.handlers.delete(token);
  }
}
