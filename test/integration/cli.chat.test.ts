/**
 * `kowalski chat --message` for scripts, as real child processes against a scripted fake
 * Ollama: the JSON line and the exit status (0 done, 3 budget used up, 1 error, 2 bad
 * usage), a session continued by `--session`, the streamed answer on stdout with the
 * tool calls and delegations on stderr; and the same through a running `kowalski serve`,
 * where a session stopped by its budget is continued by `/continue`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { profile } from '../../testkit/chat.js';
import { byMessage, chatHome } from '../support/chat-cli.js';
import { REPO, cli, outputOf, startCli, stdoutJson } from '../../testkit/cli.js';
import type { CliResult } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { cliArgs } from '../../testkit/dist.js';
import { AUTH, writeTestToken } from '../support/token.js';

interface ChatJson {
  sessionId: string;
  text: string;
  stop: string;
  usage: { calls: number; toolCalls: number; inputTokens: number; outputTokens: number };
  traceId: number | null;
  undone?: { agent: string; task: string }[];
  error?: { code: string; message: string };
}

const LIST = { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
const READ = { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] };
const TEAM = {
  helper: profile('helper', 'tools = ["list_dir", "read_file"]\nmax_iterations = 2'),
  boss: profile('boss', 'tools = ["delegate_to_agent"]\nmax_iterations = 6'),
};
const SCRIPT = byMessage({
  'list files': [LIST, { text: 'You have a.txt.' }],
  'and again': [{ text: 'Still a.txt.' }],
  'loop forever': [LIST, READ, { text: 'Finished after all.' }],
  'break': [{ status: 400, error: 'the fake refuses' }],
  'ask helper': [{ toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'helper', task: 'list files' } }] }, { text: 'Helper says a.txt.' }],
});

const chat = (home: string, args: string[]): Promise<CliResult> => cli(home, ['chat', ...args]);

describe('kowalski chat --message', { concurrency: 2 }, () => {
  it('answers in one JSON line (exit 0), goes on with --session, and refuses bad usage with its code (exit 2)', async (t) => {
    const { home, server } = await chatHome(t, SCRIPT, TEAM);
    const first = await chat(home, ['--agent', 'helper', '--message', 'list files', '--json']);
    assert.equal(first.code, 0, outputOf(first));
    const answer = stdoutJson<ChatJson>(first);
    assert.match(answer.sessionId, /^c[0-9a-z]+$/);
    assert.equal(answer.text, 'You have a.txt.');
    assert.equal(answer.stop, 'done');
    assert.equal(answer.usage.calls, 2);
    assert.equal(answer.usage.toolCalls, 1);
    assert.equal(typeof answer.traceId, 'number');

    const second = await chat(home, ['--session', answer.sessionId, '--message', 'and again', '--json']);
    assert.equal(second.code, 0, outputOf(second));
    assert.deepEqual({ ...stdoutJson<ChatJson>(second), usage: undefined, traceId: undefined }, { sessionId: answer.sessionId, text: 'Still a.txt.', stop: 'done', usage: undefined, traceId: undefined });
    // The model saw the first turn.
    const seen = server.requests.at(-1)!.body.messages.map((m: any) => m.content);
    assert.ok(seen.includes('list files') && seen.includes('You have a.txt.'), JSON.stringify(seen));

    const cases: [string[], string][] = [
      [['--agent', 'nobody', '--message', 'hi'], 'KW_ERR_AGENT_NOT_FOUND'],
      [['--session', 'cnope', '--message', 'hi'], 'KW_ERR_CHAT_NOT_FOUND'],
      [['--agent', 'helper', '--message', '  '], 'KW_ERR_INPUT_INVALID'],
      [['--session', answer.sessionId, '--agent', 'boss', '--message', 'hi'], 'KW_ERR_USAGE'],
    ];
    for (const [args, code] of cases) {
      const bad = await chat(home, args);
      assert.equal(bad.code, 2, outputOf(bad));
      assert.match(bad.stderr, new RegExp(`^kowalski: .+ \\[${code}\\]\\n$`), outputOf(bad));
    }
    const misspelt = await chat(home, ['--agent', 'helpr', '--message', 'hi']);
    assert.match(misspelt.stderr, /no agent "helpr" \(known agents: .*\); did you mean "helper"\? \[KW_ERR_AGENT_NOT_FOUND\]/, outputOf(misspelt));
    const badJson = await chat(home, ['--agent', 'nobody', '--message', 'hi', '--json']);
    assert.equal(badJson.code, 2);
    assert.equal(stdoutJson<{ error: { code: string } }>(badJson).error.code, 'KW_ERR_AGENT_NOT_FOUND');
  });

  it('a turn stopped by its budget exits 3 naming what was left undone; a model error exits 1; without --json the answer streams to stdout and the tools and delegations to stderr', async (t) => {
    const { home } = await chatHome(t, SCRIPT, TEAM);
    // One after the other: an embedded engine holds the data directory while it runs.
    const stopped = await chat(home, ['--agent', 'helper', '--message', 'loop forever', '--json']);
    const failed = await chat(home, ['--agent', 'helper', '--message', 'break', '--json']);
    const plain = await chat(home, ['--agent', 'boss', '--message', 'ask helper']);
    assert.equal(stopped.code, 3, outputOf(stopped));
    const out = stdoutJson<ChatJson>(stopped);
    assert.equal(out.stop, 'budget_exhausted');
    assert.equal(out.usage.calls, 2);
    assert.deepEqual(out.undone?.map((u) => [u.agent, u.task]), [['helper', 'loop forever']]);

    assert.equal(failed.code, 1, outputOf(failed));
    const err = stdoutJson<ChatJson>(failed);
    assert.equal(err.stop, 'error');
    assert.match(err.error?.message ?? '', /the fake refuses/);

    assert.equal(plain.code, 0, outputOf(plain));
    assert.equal(plain.stdout, 'Helper says a.txt.\n');
    const notes = plain.stderr.split('\n');
    assert.equal(notes.length, 5, plain.stderr);
    assert.equal(notes[0], '  >> helper: list files');
    assert.equal(notes[1], '    [list_dir] {"path":"."}');
    assert.match(notes[2]!, /^    \[list_dir\] -> "\." holds 1 entries: .*a\.txt/);
    assert.equal(notes[3], '  << helper done');
  });
});

/** `kowalski chat` with these lines piped in (stdin not a terminal), to the end. */
function pipedChat(home: string, args: string[], input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, KOWALSKI_HOME: home };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, [...cliArgs(), 'chat', ...args], { cwd: REPO, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('kowalski chat through a running server', () => {
  it('sends through the server that owns the data directory; /continue goes on with the turn its budget stopped', async (t) => {
    const { home } = await chatHome(t, SCRIPT, TEAM);
    // The limit is the server's whole life: four CLI processes start and finish meanwhile (~10 s each when the suite loads both cores).
    writeTestToken(home);
    const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 300_000 });
    cleanups(t)(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      await server.exited;
    });
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(await server.stderrLine(/^kowalski serving /))![1]!;

    const done = await chat(home, ['--agent', 'helper', '--message', 'list files', '--json']);
    assert.equal(done.code, 0, outputOf(done));
    const answer = stdoutJson<ChatJson>(done);
    assert.equal(answer.text, 'You have a.txt.');
    assert.equal(typeof answer.traceId, 'number');
    // The server made it (an embedded engine could not have: the server holds the data directory).
    const session = await (await fetch(`${url}api/chat/sessions/${answer.sessionId}`, { headers: AUTH })).json() as any;
    assert.equal(session.transcript[0].answer.text, 'You have a.txt.');
    const trace = await (await fetch(`${url}api/traces/${answer.traceId}`, { headers: AUTH })).json() as any;
    assert.equal(trace.sessionId, answer.sessionId);

    const stopped = await chat(home, ['--agent', 'helper', '--message', 'loop forever', '--json']);
    assert.equal(stopped.code, 3, outputOf(stopped));
    const id = stdoutJson<ChatJson>(stopped).sessionId;

    const resumed = await pipedChat(home, ['--session', id], '/continue 1\n/exit\n');
    assert.equal(resumed.code, 0, outputOf(resumed));
    assert.match(resumed.stdout, /^you> loop forever$/m);
    assert.match(resumed.stdout, /stopped: its budget of 2 model calls is used up/);
    assert.match(resumed.stdout, /^type \/continue to go on$/m);
    assert.match(resumed.stdout, /helper> Finished after all\.\n/);
    const after = await (await fetch(`${url}api/chat/sessions/${id}`, { headers: AUTH })).json() as any;
    assert.equal(after.turns, 1, 'the same turn went on');
    assert.equal(after.transcript[0].answer.stop, 'done');
    assert.deepEqual(after.transcript[0].budget, { limit: 3, used: 3 });
  });
});
