/**
 * The heavy client of the event-loop bench, in its own process (as a browser or another
 * program is), so that what it costs to build, send and read its requests is not counted
 * against the server's event loop. Its job comes as the first IPC message; it sends `{type: 'done', …}`
 * over IPC when finished, or `{type: 'error', message}`.
 */
import WebSocket from 'ws';
import { BENCH_AUTH, BENCH_TOKEN } from './token.js';

export type ClientJob =
  | { kind: 'put'; url: string; body: string; count: number; status: number }
  | { kind: 'follow'; wsUrl: string; sessionId: string; sockets: number; times: number };

/** PUT the same body `count` times, one after another, each answered with `status`. */
async function puts(job: Extract<ClientJob, { kind: 'put' }>): Promise<number> {
  for (let i = 0; i < job.count; i++) {
    const res = await fetch(job.url, { method: 'PUT', headers: { ...BENCH_AUTH, 'content-type': 'application/json' }, body: job.body });
    const text = await res.text();
    if (res.status !== job.status) throw new Error(`PUT answered ${res.status}, not ${job.status}: ${text.slice(0, 300)}`);
  }
  return job.count;
}

/** One websocket following the session `times` times in a row, each until its chat-synced; the chat events it got. */
async function follower(wsUrl: string, sessionId: string, times: number): Promise<number> {
  const ws = new WebSocket(wsUrl, ['kowalski', `bearer.${BENCH_TOKEN}`]);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let events = 0;
  try {
    for (let i = 0; i < times; i++) {
      await new Promise<void>((resolve, reject) => {
        const onMessage = (data: WebSocket.RawData): void => {
          const text = String(data);
          // Only the frame's type is needed: the start of the frame, not the whole parse.
          const type = /^\{"type":"([a-z-]+)"/.exec(text)?.[1];
          if (type === 'chat-event') events += 1;
          if (type === 'error') reject(new Error(text));
          if (type !== 'chat-synced') return;
          ws.off('message', onMessage);
          resolve();
        };
        ws.on('message', onMessage);
        ws.send(JSON.stringify({ type: 'chat-follow', sessionId, after: 0 }));
      });
    }
  } finally {
    ws.terminate();
  }
  return events;
}

async function main(job: ClientJob): Promise<void> {
  const count = job.kind === 'put'
    ? await puts(job)
    : (await Promise.all(Array.from({ length: job.sockets }, () => follower(job.wsUrl, job.sessionId, job.times)))).reduce((a, b) => a + b, 0);
  process.send?.({ type: 'done', count });
}

process.once('message', (job: ClientJob) => {
  main(job).then(() => process.disconnect?.(), (err: unknown) => {
    process.send?.({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    process.disconnect?.();
  });
});
