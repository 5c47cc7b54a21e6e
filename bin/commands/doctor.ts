/** `kowalski doctor`: each check of this machine and the configuration, ok / warn / fail with the fix; exit 1 if any fails. */
import { KowalskiError } from '../../core/index.js';
import { runChecks } from '../doctor/index.js';
import type { Check } from '../doctor/index.js';
import { EXIT, dataDir } from './common.js';

const MARK: Record<Check['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export async function doctorCommand(opts: { host: string; port: string; json?: boolean }): Promise<number> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new KowalskiError('KW_ERR_USAGE', `--port takes a port 1–65535, not ${JSON.stringify(opts.port)}`);
  const checks = await runChecks(dataDir(), { host: opts.host, port });
  const failed = checks.some((c) => c.status === 'fail');
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify({ ok: !failed, checks })}\n`);
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    const lines = checks.map((c) => `${MARK[c.status]}  ${c.name.padEnd(width)}  ${c.detail}${c.fix === undefined ? '' : `\n      fix: ${c.fix}`}`);
    process.stdout.write(`${lines.join('\n')}\n${failed ? 'some checks failed' : 'all checks passed'}\n`);
  }
  return failed ? EXIT.failed : EXIT.ok;
}
