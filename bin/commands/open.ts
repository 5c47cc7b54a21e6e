/** `open <run-id>`: the run's page in the operator app of the server that owns the data directory. */
import { KowalskiError } from '../../core/index.js';
import { EXIT, dataDir } from './common.js';
import { canOpenBrowser, openBrowser } from './open-browser.js';
import { findServer } from './remote.js';

export async function openCommand(runId: string, opts: { print?: boolean; json?: boolean }): Promise<number> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'none') throw new KowalskiError('KW_ERR_SERVER_NOT_RUNNING', `no kowalski server runs on ${dir}: start one with \`kowalski serve\`, then \`kowalski open ${runId}\` again`);
  if (lookup.kind === 'silent') throw new KowalskiError('KW_ERR_SERVER_UNREACHABLE', `a kowalski server (process ${lookup.pid}) owns ${dir} and should answer at ${lookup.url}, but it does not (${lookup.why})`);
  const view = await lookup.api.getRun(runId); // KW_ERR_RUN_NOT_FOUND for a typo, before anything opens
  const url = `${lookup.api.server.url}#/runs/${view.run.id}`;
  const opened = opts.print !== true && canOpenBrowser();
  if (opened) openBrowser(url);
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ runId: view.run.id, url, opened })}\n`);
  else process.stdout.write(`${url}\n${opened ? '' : 'kowalski: no browser opened here (no display, CI, KOWALSKI_NO_OPEN or --print): open the address above\n'}`);
  return EXIT.ok;
}
