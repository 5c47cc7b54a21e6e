/**
 * `serve`: until the operator server lands, the engine runs headless: it recovers
 * interrupted runs, keeps them going, and says how to drive it from the CLI.
 */
import { createEngine, formatRecovery } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';

export async function serveCommand(opts: { host?: string; port?: string; open?: boolean }): Promise<number> {
  const engine = await createEngine({ dataDir: dataDir() });
  const summary = await engine.recover();
  process.stderr.write(
    `kowalski engine running headless on ${engine.paths.dataDir} (the web app arrives with the server; ${opts.host ?? '127.0.0.1'}:${opts.port ?? '8765'} is not opened yet)\n` +
      `${formatRecovery(summary)}\n` +
      'stop with Ctrl-C; in another terminal `kowalski runs` and `kowalski show <run-id>` read the history\n',
  );
  engine.on('run:event', ({ stored, state }) => {
    if (stored.event.type === 'step.finished' || state !== 'running') process.stderr.write(`${stored.runId} ${stored.event.type} ${state}\n`);
  });
  engine.on('engine:warning', ({ message }) => process.stderr.write(`warning: ${message}\n`));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await engine.close();
  return EXIT.ok;
}
