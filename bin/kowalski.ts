#!/usr/bin/env node
/** The kowalski CLI: parses arguments and calls into the engine. Exit codes: 0 done, 1 failed, 2 bad usage or input, 3 parked. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { packageRoot } from '../engine/index.js';
import { EXIT, reportError } from './commands/common.js';
import { hordesCommand, validateCommand } from './commands/hordes.js';
import { runsCommand, showCommand } from './commands/history.js';
import { approveCommand, cancelCommand, denyCommand, resumeCommand, runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';

const version = (JSON.parse(readFileSync(`${packageRoot(import.meta.url)}/package.json`, 'utf8')) as { version: string }).version;
let jsonOutput = false;

/** Run an action and turn its result (or its error) into the exit status. */
function act<A extends unknown[]>(fn: (...args: A) => number | Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const opts = args.find((a) => typeof a === 'object' && a !== null && !Array.isArray(a) && !(a instanceof Command)) as { json?: boolean } | undefined;
    jsonOutput = opts?.json === true;
    try {
      process.exitCode = await fn(...args);
    } catch (err) {
      process.exitCode = reportError(err, jsonOutput);
    }
  };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const program = new Command('kowalski')
  .description('A local-first agent runtime: hordes as folders of Markdown, run as durable pipelines.\nData directory: $KOWALSKI_HOME, else ~/.local/share/kowalski.')
  .version(version)
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

program.command('serve').description('run the engine (the web app arrives with the server)')
  .option('--host <host>', 'address to bind', '127.0.0.1').option('--port <port>', 'port', '8765').option('--no-open', 'do not open a browser')
  .action(act(serveCommand));
program.command('run').description('start a run of a horde (an id or a folder) and follow it')
  .argument('<horde>', 'horde id or folder').option('-i, --input <key=value>', 'a form answer (repeatable)', collect).option('--json', 'print one JSON object')
  .action(act(runCommand));
program.command('runs').description('list runs, newest first')
  .option('--status <state>', 'queued | running | awaiting_input | succeeded | failed | cancelled').option('--horde <id>').option('--limit <n>').option('--json')
  .action(act(runsCommand));
program.command('show').description('one run: steps, attempts, the pending approval').argument('<run-id>').option('--json').action(act(showCommand));
program.command('approve').description('approve the command a parked run waits on, then continue the run')
  .argument('<run-id>').option('--step <name>', 'the step, when several wait').option('--json').action(act(approveCommand));
program.command('deny').description('deny a parked step (it fails with your reason), then continue the run')
  .argument('<run-id>').option('--step <name>').option('--reason <text>').option('--json').action(act(denyCommand));
program.command('cancel').description('cancel a run; its running steps are stopped').argument('<run-id>').option('--reason <text>').option('--json').action(act(cancelCommand));
program.command('resume').description('continue every unfinished run until it finishes or parks').option('--json').action(act(resumeCommand));
program.command('hordes').description('list the built-in and your hordes').option('--json').action(act(hordesCommand));
program.command('validate').description('check a horde folder; exit 2 with the list of problems').argument('<folder>').option('--json').action(act(validateCommand));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    process.exitCode = reportError(err, jsonOutput);
  }
}
