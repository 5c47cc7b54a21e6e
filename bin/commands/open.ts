/**
 * `open [run-id]`: a one-time sign-in link to the operator app of the server that owns the
 * data directory (to a run's page when a run is named), opened in the browser where there
 * is one and printed always. The code in it is minted by the server for this command,
 * which proves itself with the token kept in the data folder.
 */
import { KowalskiError } from '../../core/index.js';
import { EXIT, dataDir } from './common.js';
import { canOpenBrowser, openBrowser } from './open-browser.js';
import { findServer } from './remote.js';
import { signInUrl } from './sign-in.js';

export async function openCommand(runId: string | undefined, opts: { print?: boolean; json?: boolean }): Promise<number> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  const again = runId === undefined ? '`kowalski open`' : `\`kowalski open ${runId}\``;
  if (lookup.kind === 'none') throw new KowalskiError('KW_ERR_SERVER_NOT_RUNNING', `no kowalski server runs on ${dir}: start one with \`kowalski serve\`, then ${again} again`);
  if (lookup.kind === 'silent') throw new KowalskiError('KW_ERR_SERVER_UNREACHABLE', `a kowalski server (process ${lookup.pid}) owns ${dir} and should answer at ${lookup.url}, but it does not (${lookup.why})`);
  // KW_ERR_RUN_NOT_FOUND for a typo, before anything opens.
  const page = runId === undefined ? undefined : `#/runs/${(await lookup.api.getRun(runId)).run.id}`;
  const { code, expiresAt } = await lookup.api.mintLoginCode();
  const url = signInUrl(lookup.api.server.url, code, page);
  const opened = opts.print !== true && canOpenBrowser();
  if (opened) openBrowser(url);
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify({ ...(runId === undefined ? {} : { runId: page!.slice('#/runs/'.length) }), url, expiresAt: new Date(expiresAt).toISOString(), opened })}\n`);
  } else {
    process.stdout.write(`${url}\n${opened ? '' : 'kowalski: no browser opened here (no display, CI, KOWALSKI_NO_OPEN or --print): open the link above; it signs in once, within 10 minutes\n'}`);
  }
  return EXIT.ok;
}
