/**
 * The spawn helper: a small, long-lived child process of the engine that starts the
 * steps' commands, so the big engine process is never forked for them (a fork copies
 * its page tables and stalls it; from here a start costs what it costs any small process).
 * `node spawner-main.js <socket> [<lifeline fd>]`, forked by spawner.ts with an IPC channel
 * and the engine's lifeline (lifeline.ts).
 *
 * Each connection to `<socket>` runs one command through `execCommand` (exec.ts): its own
 * process group, the gate, bounded capture, the kill on abort; the step relays `spawned`
 * to the engine and `go` back (spawner-wire.ts). This process holds the sentinels' ends
 * of fd 3, so nothing of a command outlives it; each gate also gets the engine's lifeline,
 * so nothing of a command outlives the engine either. It lives no longer than its engine:
 * when the IPC channel closes (the engine exited, SIGKILL included) it SIGKILLs every
 * group it started and exits. A step that goes away (its connection closes) takes its
 * command with it.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { KowalskiError, toPlainError } from '../core/index.js';
import { execCommand } from './exec.js';
import { killGroup } from './kill-group.js';
import { lineReader } from './spawner-wire.js';
import type { SpawnReply, SpawnRequest } from './spawner-wire.js';

/** One connection: one command. `lifeline`: this process's end of the engine's lifeline (lifeline.ts), when it has one. */
function serve(socket: net.Socket, groups: Set<number>, lifeline: number | undefined): void {
  const stop = new AbortController();
  let gate: { open(): void; shut(err: Error): void } | undefined;
  let pgid: number | undefined;
  let over = false;
  const reply = (message: SpawnReply): void => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  const abort = (): void => {
    stop.abort(new KowalskiError('KW_ERR_STEP_CANCELLED', 'the step stopped its command'));
    gate?.shut(stop.signal.reason as Error);
  };
  const onRequest = (value: unknown): void => {
    const request = value as SpawnRequest;
    if (request.type === 'go') gate?.open();
    else if (request.type === 'abort') abort();
    else if (request.type === 'start' && !over && pgid === undefined && gate === undefined) start(request);
  };
  const start = (request: Extract<SpawnRequest, { type: 'start' }>): void => {
    const options = {
      env: request.env,
      signal: stop.signal,
      outputBytes: request.outputBytes,
      lifeline,
      spawned: (group: number): Promise<void> => {
        pgid = group;
        groups.add(group);
        reply({ type: 'spawned', pgid: group });
        return new Promise<void>((resolve, reject) => {
          gate = { open: resolve, shut: reject };
        });
      },
      ...(request.killGraceMs === undefined ? {} : { killGraceMs: request.killGraceMs }),
      ...(request.drainMs === undefined ? {} : { drainMs: request.drainMs }),
    };
    execCommand({ argv: request.argv, cwd: request.cwd, env: [] }, options).then(
      (result) => reply({ type: 'exit', result }),
      (err: unknown) => reply({ type: 'refused', error: toPlainError(err, 'KW_ERR_COMMAND_SPAWN') }),
    ).finally(() => {
      over = true;
      if (pgid !== undefined) groups.delete(pgid);
      socket.end();
    });
  };
  socket.on('data', lineReader(onRequest, () => socket.destroy()));
  socket.on('error', () => undefined); // 'close' follows
  socket.on('close', () => {
    if (over) return;
    // The step is gone (its thread ended, or its engine): so is its command, at once.
    if (pgid !== undefined) killGroup(pgid, 'SIGKILL');
    abort();
  });
}

function main(): void {
  const socketPath = process.argv[2];
  const send = process.send?.bind(process);
  if (socketPath === undefined || send === undefined) {
    process.stderr.write('kowalski spawn helper: started by the engine only (a socket path and an IPC channel)\n');
    process.exit(2);
  }
  const lifeline = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
  const groups = new Set<number>();
  const server = net.createServer((socket) => serve(socket, groups, lifeline));
  const quit = (): void => {
    for (const pgid of groups) killGroup(pgid, 'SIGKILL');
    fs.rmSync(socketPath, { force: true });
    try {
      fs.rmdirSync(path.dirname(socketPath)); // the engine's folder for it, empty now (a crashed engine leaves nothing)
    } catch {
      // not there, or not empty
    }
    process.exit(0);
  };
  // The engine went away (or closed us): nothing we started may go on. It may have gone
  // while this module was loading, before anyone listened for it.
  process.on('disconnect', quit);
  if (!process.connected) quit();
  server.on('error', (err) => {
    process.stderr.write(`kowalski spawn helper: cannot listen on ${socketPath}: ${err.message}\n`);
    process.exit(1);
  });
  try {
    fs.unlinkSync(socketPath); // a socket left by a helper that was killed
  } catch {
    // none
  }
  server.listen(socketPath, () => {
    if (process.connected) send({ type: 'ready' }, undefined, {}, () => undefined);
    else quit();
  });
}

main();
