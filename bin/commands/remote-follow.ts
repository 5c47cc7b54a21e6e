/**
 * Follow one run over the server's websocket: subscribe after a known sequence number,
 * hand on each event once, and settle when the run finishes or parks. The `synced`
 * frame gives the run's state once the backlog is sent; live `event` frames carry it
 * after each event. A dropped connection is opened again and subscribes after the last
 * sequence number seen, so no event is handed on twice and none is missed.
 */
import WebSocket from 'ws';
import type { RawData } from 'ws';
import { KowalskiError, isErrorCode } from '../../core/index.js';
import { isSettled } from '../../engine/index.js';
import type { ServerFrame } from '../../api/index.js';
import type { RunState } from '../../engine/index.js';
import type { FollowedEvent } from './progress.js';
import { errorFromBody } from './remote.js';
import type { ApiClient } from './remote.js';

/** Waits before each new attempt after the connection drops (about 9 s in all); a frame past the backlog starts the count again. */
const RECONNECT_MS = [100, 200, 400, 800, 1600, 2000, 2000, 2000];
const HANDSHAKE_TIMEOUT_MS = 5000;

export interface FollowOptions {
  /** Told each event after `after`, in order, once. */
  onEvent?: (e: FollowedEvent) => void;
  /** Told each time the connection dropped and is tried again (tests count them). */
  onReconnect?: (why: string) => void;
}

/** Resolves with the run's state once it has finished or parks; rejects with the server's error, or KW_ERR_SERVER_UNREACHABLE when the server stays away. */
export function followRemote(api: ApiClient, runId: string, after: number, options: FollowOptions = {}): Promise<RunState> {
  return new Promise((resolve, reject) => {
    let last = after;
    let attempt = 0;
    let socket: WebSocket | undefined;
    let retry: NodeJS.Timeout | undefined;
    let done = false;

    const finish = (outcome: { state: RunState } | { error: Error }): void => {
      if (done) return;
      done = true;
      clearTimeout(retry);
      socket?.terminate();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.state);
    };

    const lost = (why: string): void => {
      if (done) return;
      const wait = RECONNECT_MS[attempt++];
      if (wait === undefined) {
        finish({ error: new KowalskiError('KW_ERR_SERVER_UNREACHABLE', `lost the server at ${api.server.url} (process ${api.server.pid}) while following run ${runId}: ${why}. The run goes on in the server; see \`kowalski show ${runId}\``) });
        return;
      }
      options.onReconnect?.(why);
      retry = setTimeout(connect, wait);
    };

    const onFrame = (frame: ServerFrame): void => {
      switch (frame.type) {
        case 'event': {
          if (frame.runId !== runId || frame.seq <= last) return;
          last = frame.seq;
          const { gseq, seq, at, event, state } = frame;
          options.onEvent?.({ stored: { gseq, runId, seq, at, event }, state });
          if (state !== null && isSettled(state)) finish({ state });
          return;
        }
        case 'synced':
          attempt = 0;
          if (frame.state !== undefined && isSettled(frame.state)) finish({ state: frame.state });
          return;
        case 'error':
          finish({ error: new KowalskiError(isErrorCode(frame.error.code) ? frame.error.code : 'KW_ERR_INTERNAL', frame.error.message) });
          return;
        case 'hello':
        case 'progress': // step progress lines are not printed (nor in embedded mode)
        case 'result':
          return;
      }
    };

    const connect = (): void => {
      if (done) return;
      const ws = new WebSocket(api.wsUrl, ['kowalski'], { headers: api.headers, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
      socket = ws;
      let why = 'the connection closed';
      ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', runId, after: last })));
      ws.on('message', (data: RawData) => {
        try {
          onFrame(JSON.parse(String(data)) as ServerFrame);
        } catch (err) {
          finish({ error: err as Error });
        }
      });
      // Refused before the upgrade (a token, a Host): final for a 4xx; a 5xx (the server stopping) is tried again.
      ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 400 && status < 500) finish({ error: errorFromBody(status, text, `the websocket of ${api.server.url}`) });
          why = `HTTP ${status}`;
          ws.terminate();
        });
      });
      ws.on('error', (err) => {
        why = (err as NodeJS.ErrnoException).code ?? err.message;
      });
      ws.on('close', (code, reason) => {
        if (socket !== ws) return;
        lost(reason.length > 0 ? `${reason.toString()} (${code})` : why);
      });
    };

    connect();
  });
}
