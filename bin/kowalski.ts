#!/usr/bin/env node
/** The kowalski CLI: parses arguments and calls into the engine. Exit codes: 0 done, 1 failed, 2 bad usage or input, 3 parked (a run waiting for the operator; a chat turn whose budget ran out). */
import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError } from 'commander';

// Commands are loaded when used, so `--help`, `validate` or `runs` do not load the whole engine.
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const version = (JSON.parse(readFileSync(new URL(import.meta.url.endsWith('.ts') ? '../package.json' : '../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
let jsonOutput = false;

type Action = (...args: never[]) => number | Promise<number>;

/** An action whose module is imported on first use. */
function lazy<M extends { [P in K]: Action }, K extends keyof M>(load: () => Promise<M>, name: K): (...args: Parameters<M[K]>) => Promise<number> {
  return async (...args) => (await load())[name](...args);
}
const runCommands = () => import('./commands/run.js');
const budgetCommands = () => import('./commands/budget.js');
const reviewCommands = () => import('./commands/review.js');
const historyCommands = () => import('./commands/history.js');
const hordeCommands = () => import('./commands/hordes.js');
const agentCommands = () => import('./commands/agents.js');
const serveCommands = () => import('./commands/serve.js');
const mcpCommands = () => import('./commands/mcp.js');
const mcpServeCommands = () => import('./commands/mcp-serve.js');
const mcpLoginCommands = () => import('./commands/mcp-login.js');
const bundleCommands = () => import('./commands/bundle.js');
const triggerCommands = () => import('./commands/triggers.js');
const adapterCommands = () => import('./commands/adapters.js');
const pluginCommands = () => import('./commands/plugins.js');
const nodeCommands = () => import('./commands/nodes.js');
const chatCommands = () => import('./commands/chat.js');
const vaultCommands = () => import('./commands/vault.js');
const memoryCommands = () => import('./commands/memory.js');
const vaultSearchCommands = () => import('./commands/vault-search.js');
const backupCommands = () => import('./commands/backup.js');
const doctorCommands = () => import('./commands/doctor.js');
const initCommands = () => import('./commands/init.js');
const openCommands = () => import('./commands/open.js');
const storeCommands = () => import('./commands/store.js');

async function reportError(err: unknown, json: boolean): Promise<number> {
  return (await import('./commands/common.js')).reportError(err, json);
}

/** Run an action and turn its result (or its error) into the exit status. */
function act<A extends unknown[]>(fn: (...args: A) => number | Promise<number>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const opts = args.find((a) => typeof a === 'object' && a !== null && !Array.isArray(a) && !(a instanceof Command)) as { json?: boolean } | undefined;
    jsonOutput = opts?.json === true;
    try {
      process.exitCode = await fn(...args);
    } catch (err) {
      process.exitCode = await reportError(err, jsonOutput);
    }
  };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const program = new Command('kowalski')
  .description('A local-first agent runtime: hordes as folders of Markdown, run as durable pipelines.\nData directory: $KOWALSKI_HOME, else ~/.local/share/kowalski.')
  .version(version)
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

program.command('serve').description('run the engine and the operator app (http://127.0.0.1:8765/)')
  .option('--host <host>', 'address to bind (beyond loopback a bearer token is required)', '127.0.0.1').option('--port <port>', 'port', '8765').option('--no-open', 'do not open a browser')
  .action(act(lazy(serveCommands, 'serveCommand')));
program.command('run').description('start a run of a horde (an id or a folder) and follow it')
  .argument('<horde>', 'horde id or folder').option('-i, --input <key=value>', 'a form answer (repeatable)', collect).option('--json', 'print one JSON object')
  .option('--skip-model-check', 'start even when a model step has no model configured or its provider does not answer')
  .action(act(lazy(runCommands, 'runCommand')));
program.command('runs').description('list runs, newest first')
  .option('--status <state>', 'queued | running | awaiting_input | succeeded | failed | cancelled').option('--horde <id>').option('--limit <n>').option('--json')
  .action(act(lazy(historyCommands, 'runsCommand')));
program.command('show').description('one run: steps, attempts, the pending approval').argument('<run-id>').option('--json').action(act(lazy(historyCommands, 'showCommand')));
program.command('open').description("open the operator app of the running server with a one-time sign-in link (a run's page when a run is named); prints the link").argument('[run-id]')
  .option('--print', 'only print the address').option('--json').action(act(lazy(openCommands, 'openCommand')));
program.command('approve').description('approve the command a parked run waits on, then continue the run')
  .argument('<run-id>').option('--step <name>', 'the step, when several wait').option('--hash <sha256>', 'the hash you saw (refused when another one waits)').option('--json').action(act(lazy(runCommands, 'approveCommand')));
program.command('deny').description('deny a parked step (it fails with your reason), then continue the run')
  .argument('<run-id>').option('--step <name>').option('--reason <text>').option('--json').action(act(lazy(runCommands, 'denyCommand')));
program.command('review').description('show the artifact a review step waits on; --edit opens it in $EDITOR, then approves your edit')
  .argument('<run-id>').option('--step <name>', 'the step, when several wait').option('--edit', 'edit the artifact in $VISUAL / $EDITOR, then approve it').option('--json')
  .action(act(lazy(reviewCommands, 'reviewCommand')));
program.command('cancel').description('cancel a run; its running steps are stopped').argument('<run-id>').option('--reason <text>').option('--json').action(act(lazy(runCommands, 'cancelCommand')));
program.command('budget').description("a run's spending against its budget; with limits, raise them and follow the run (exit 3 while it is parked)")
  .argument('<run-id>').option('--model-calls <n>').option('--tokens <n>').option('--cost-usd <usd>').option('--tool-calls <n>').option('--wall-secs <s>').option('--json')
  .action(act(lazy(budgetCommands, 'budgetCommand')));
program.command('resume').description('continue every unfinished run until it finishes or parks').option('--json').action(act(lazy(runCommands, 'resumeCommand')));
program.command('rerun').description('a new run from a step of an earlier run: the steps before it reuse that run\'s results; follow it')
  .argument('<run-id>').requiredOption('--from <step>', 'the first step that runs again').option('--horde <folder>', 'run this (edited) horde instead of the run\'s own')
  .option('--replay-models', 'answer model calls whose prompt is unchanged from the earlier run\'s traces').option('--json').action(act(lazy(runCommands, 'rerunCommand')));
program.command('hordes').description('list the built-in and your hordes').option('--json').action(act(lazy(hordeCommands, 'hordesCommand')));
program.command('agents').description('list the agent profiles (built-in and <data>/team/); exit 1 if a profile file has problems').option('--json').action(act(lazy(agentCommands, 'agentsCommand')));
program.command('validate').description('check a horde folder; exit 2 with the list of problems').argument('<folder>').option('--json').action(act(lazy(hordeCommands, 'validateCommand')));
program.command('chat').description('talk with the agent team: interactive (/help lists the commands), or one message with --message')
  .option('--agent <name>', 'the agent of a new session (default: assistant)').option('--session <id>', 'go on with a session (its last turns are printed first)')
  .option('--message <text>', 'send this one message, print the answer and exit (0 done, 1 error, 3 budget used up)').option('--json', 'with --message: print one JSON object')
  .option('--data-dir <dir>', 'the data directory (default: $KOWALSKI_HOME, else ~/.local/share/kowalski)')
  .action(act(lazy(chatCommands, 'chatCommand')));
const memory = program.command('memory').description('the chat agents\' memory');
memory.command('consolidate').description('turn the chat turns finished recently into durable facts, kept as notes under the vault\'s memory/')
  .option('--since <time>', 'how far back: 30m, 24h, 7d', '24h').option('--agent <name>', 'only this agent\'s sessions').option('--json', 'print one JSON object')
  .action(act(lazy(memoryCommands, 'memoryConsolidateCommand')));
const triggers = program.command('triggers').description('list the triggers: switch, next firing, last firing').option('--json')
  .action(act(lazy(triggerCommands, 'triggersCommand')));
triggers.command('enable').description('switch a trigger on (persisted)').argument('<horde/trigger>').option('--json').action(act(lazy(triggerCommands, 'triggerEnableCommand')));
triggers.command('disable').description('switch a trigger off (persisted)').argument('<horde/trigger>').option('--json').action(act(lazy(triggerCommands, 'triggerDisableCommand')));
const adapters = program.command('adapters').description('list the adapters: type, agent, state, last error, last activity').option('--json')
  .action(act(lazy(adapterCommands, 'adaptersCommand')));
adapters.command('enable').description('switch an adapter on (persisted; the server starts it)').argument('<name>').option('--json').action(act(lazy(adapterCommands, 'adapterEnableCommand')));
adapters.command('disable').description('switch an adapter off (persisted; the server stops it)').argument('<name>').option('--json').action(act(lazy(adapterCommands, 'adapterDisableCommand')));
const plugins = program.command('plugins').description('list the plugins: pending or granted, permissions in plain words, failures').option('--json')
  .action(act(lazy(pluginCommands, 'pluginsCommand')));
plugins.command('grant').description("grant a plugin's permissions: its tools are offered to agents (audited)").argument('<name>').option('--json').action(act(lazy(pluginCommands, 'pluginGrantCommand')));
plugins.command('revoke').description("take a plugin's grant back: pending again, its process stopped (audited)").argument('<name>').option('--json').action(act(lazy(pluginCommands, 'pluginRevokeCommand')));
program.command('nodes').description('the nodes sharing the run store: heartbeat, alive/stopped/silent, runs held, steps running; the latest hand-overs of runs')
  .option('--json').action(act(lazy(nodeCommands, 'nodesCommand')));
// `vault …`: the notes, their search and the audit of their writes.
const vault = program.command('vault').description('the notes the agents and you share (<data>/vault/): list, read, search, and the audit of every write kowalski made to them');
vault.command('ls').description('list the notes (of a folder)').argument('[under]', 'a folder of the vault').option('--json').action(act(lazy(vaultCommands, 'vaultLsCommand')));
vault.command('show').description('print a note').argument('<path>', 'the note, relative to the vault').option('--json', 'the note, its text and its last writes as one JSON object')
  .action(act(lazy(vaultCommands, 'vaultShowCommand')));
vault.command('writes').description('the audit: every write to a note, newest first (who, which model call, sizes, state)')
  .option('--path <path>', 'only the writes of this note').option('--session <id>', 'only the writes of this chat session').option('--limit <n>', 'at most this many (default 100)').option('--json')
  .action(act(lazy(vaultCommands, 'vaultWritesCommand')));
vault.command('revert').description('undo a write if the note is still as it left it (exit 1 with the diff when it changed since)').argument('<write-id>').option('--json')
  .action(act(lazy(vaultCommands, 'vaultRevertCommand')));
vault.command('search').description('search the notes by keyword (FTS5), and by meaning too with --semantic when semantic search is on in Setup')
  .argument('<query>', 'words to look for').option('--semantic', 'merge in semantic results (keyword results with a note when that side cannot answer)')
  .option('--limit <n>', 'notes to show, 1–100 (default 10)').option('--under <folder>', 'only notes in this folder of the vault').option('--json', 'print the answer as one JSON object')
  .action(act(lazy(vaultSearchCommands, 'vaultSearchCommand')));
vault.command('reindex').description('read every note again and, with semantic search on, embed every note with the configured model (needed after changing it)')
  .option('--json', 'print one JSON object').action(act(lazy(vaultSearchCommands, 'vaultReindexCommand')));
const mcp = program.command('mcp').description('MCP servers ([[mcp.servers]] in config.toml)');
mcp.command('check').description('start or reach every configured MCP server and list its tools; exit 1 if any does not answer')
  .option('--json', 'print one JSON object').action(act(lazy(mcpCommands, 'mcpCheckCommand')));
mcp.command('login').description('sign in to an MCP server reached over HTTP (OAuth with PKCE, dynamic client registration): prints the address to open, waits for the browser to come back; the sign-in is kept 0600 in <data>/secrets/, never in config.toml')
  .argument('<server>', 'the name of an [[mcp.servers]] entry that has a url')
  .option('--no-open', 'only print the address; do not open a browser').option('--json', 'print one JSON object when signed in')
  .action(act(lazy(mcpLoginCommands, 'mcpLoginCommand')));
mcp.command('serve').description("run one of kowalski's own MCP servers — data: a folder's spreadsheets as SQL tables; rookery: tools that check and write horde drafts (stdio, or Streamable HTTP with --http)")
  .addArgument(new Argument('<server>', 'the server').choices(['data', 'rookery']))
  .option('--root <folder>', 'data: the folder whose spreadsheets are served (default: the current folder)')
  .option('--output-root <folder>', 'rookery: the folder hordes are written into (default: <data>/hordes)')
  .option('--http', 'serve over Streamable HTTP at /mcp instead of stdio')
  .option('--host <host>', 'HTTP: address to bind (beyond loopback --token is required)', '127.0.0.1')
  .option('--port <port>', 'HTTP: port (0 = any free port; the URL is printed on stderr)', '0')
  .option('--token <token>', 'HTTP: bearer token every request must carry (default: $KOWALSKI_MCP_TOKEN)')
  .action(act(lazy(mcpServeCommands, 'mcpServeCommand')));
const bundle = program.command('bundle').description('hordes as .kwf.zip bundles: export one, or review and import one');
bundle.command('export').description('write a horde (an id or a folder) as a .kwf.zip bundle')
  .argument('<horde>', 'horde id or folder').option('-o, --output <file>', 'the bundle to write (default: <id>.kwf.zip here)').option('--force', 'overwrite the file if it exists').option('--json')
  .action(act(lazy(bundleCommands, 'bundleExportCommand')));
bundle.command('import').description('check a bundle, show what it will ask to run, then install it into your hordes (exit 2 if it is refused)')
  .argument('<file>', 'the .kwf.zip').option('--id <id>', 'install under this id instead of the bundle\'s').option('--replace', 'replace your horde with the same id (never a built-in)')
  .option('--dry-run', 'only review: install nothing').option('--json', 'print one JSON object')
  .action(act(lazy(bundleCommands, 'bundleImportCommand')));
program.command('backup').description('write the data folder (database, runs, hordes, team, vault, config) to one archive with a manifest and checksums, while kowalski runs')
  .argument('<file>', 'the archive to write (a new file)').option('--with-secrets', 'keep the API token and config.toml\'s keys, tokens and webhook secrets').option('--json', 'print one JSON object')
  .action(act(lazy(backupCommands, 'backupCommand')));
program.command('restore').description('check a backup (every checksum, the database\'s integrity) and unpack it into a new data folder')
  .argument('<file>', 'the archive').requiredOption('--to <dir>', 'the new data folder (must not exist, or be empty)').option('--json', 'print one JSON object')
  .action(act(lazy(backupCommands, 'restoreCommand')));
program.command('migrate').description("apply the run store's missing schema migrations without starting an engine: the data folder's kowalski.sqlite and its configured Postgres store ([store] url, KOWALSKI_DATABASE_URL), or only --url")
  .option('--url <postgres-url>', 'only this PostgreSQL database (nodes may be running on it)').option('--data-dir <dir>', 'the data directory (default: $KOWALSKI_HOME, else ~/.local/share/kowalski)').option('--json', 'print one JSON object')
  .action(act(lazy(storeCommands, 'migrateCommand')));
const store = program.command('store').description('the run store (events, runs, attempts, approvals, triggers): move it between SQLite and PostgreSQL');
store.command('copy').description('copy every run (parked ones included), approval and trigger record into an empty store in one transaction, then check the copy (docs/postgres.md)')
  .requiredOption('--from <store>', '"sqlite" (the data folder\'s kowalski.sqlite) or postgres://user@host:5432/database')
  .requiredOption('--to <store>', '"sqlite" or postgres://user@host:5432/database (must be empty)')
  .option('--force', 'copy even while live nodes use a Postgres end').option('--data-dir <dir>', 'the data directory (default: $KOWALSKI_HOME, else ~/.local/share/kowalski)').option('--json', 'print one JSON object')
  .action(act(lazy(storeCommands, 'storeCopyCommand')));
program.command('init').description("write a new config.toml (owner-only) in the data folder with every key and what it does; refuses if there is one")
  .option('--json', 'print one JSON object').action(act(lazy(initCommands, 'initCommand')));
program.command('doctor').description('check Node, the data folder and its modes, the database, free disk, the model, MCP servers, web search and the port: ok / warn / fail with the fix; exit 1 if any fails')
  .option('--host <host>', 'the address serve would bind', '127.0.0.1').option('--port <port>', 'the port serve would use', '8765').option('--json', 'print one JSON object')
  .action(act(lazy(doctorCommands, 'doctorCommand')));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
  } else {
    process.exitCode = await reportError(err, jsonOutput).catch(() => EXIT_FAILED);
  }
}
