/**
 * The interactive `kowalski chat` on a real pseudo-terminal (util-linux `script`), with
 * an embedded engine and a scripted fake Ollama: an answer streams piece by piece with
 * its tool call shown, /agents lists the team, a turn stopped by its budget says what
 * was left undone and /continue finishes that same turn, /exit leaves; then
 * `--session ID` in a new process prints the history.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { profile } from '../../testkit/chat.js';
import { byMessage, chatHome } from '../support/chat-cli.js';
import type { FakeTurn } from '../../testkit/fake-models.js';
import { cli, outputOf } from '../../testkit/cli.js';
import { startPty } from '../support/pty.js';
import { cleanups } from '../../testkit/cleanup.js';

const LIST = { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
const READ = { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] };

test('an interactive session on a terminal: streaming with tool calls, /agents, /continue after a budget stop, /exit, then --session shows it', async (t) => {
  const { home } = await chatHome(t, byMessage({
    'list files': [LIST, { text: 'You have one file, a.txt.', chunkDelayMs: 150 }],
    'read it all': [LIST, READ, { text: 'Finished after all.' }],
  }), {
    helper: profile('helper', 'tools = ["list_dir", "read_file"]\nmax_iterations = 2'),
    boss: profile('boss', 'tools = ["delegate_to_agent"]'),
  }, 'max_iterations = 3');

  const pty = startPty(home, ['chat', '--agent', 'helper']);
  cleanups(t)(() => {
    if (pty.child.exitCode === null) pty.child.kill('SIGKILL');
  });
  let mark = (await pty.until(/you> $/)).length;

  pty.type('list files\r');
  // The tool call shows, then the answer arrives piece by piece (150 ms apart).
  const early = await pty.until(/helper> You /, mark);
  assert.doesNotMatch(early.slice(mark), /a\.txt\./, 'the first piece shows before the rest is streamed');
  let screen = await pty.until(/\(2 model calls, 1 tool call, .*\)\nyou> $/, mark);
  let turn = screen.slice(mark);
  assert.match(turn, /^ {2}\[list_dir\] \{"path":"\."\}$/m);
  assert.match(turn, /^ {2}\[list_dir\] -> "\." holds 1 entries: .*a\.txt/m);
  assert.match(turn, /^helper> You have one file, a\.txt\.$/m);
  mark = screen.length;

  pty.type('/agents\r');
  screen = await pty.until(/you> $/, mark);
  // The team: the built-in profiles and the two of the data directory, the current one marked.
  const team = screen.slice(mark);
  assert.match(team, /^ {2}assistant +Your assistant/m);
  assert.match(team, /^ {2}boss +the boss agent$/m);
  assert.match(team, /^\* helper +the helper agent$/m);
  mark = screen.length;

  pty.type('read it all\r');
  screen = await pty.until(/type \/continue to go on\n(.|\n)*you> $/, mark);
  turn = screen.slice(mark);
  assert.match(turn, /the turn stopped: its budget is used up \(2 model calls\)\. Left undone:\n {2}- helper: read it all\n/);
  assert.doesNotMatch(turn, /Finished/);
  mark = screen.length;

  pty.type('/continue\r');
  screen = await pty.until(/helper> Finished after all\.\n(.|\n)*you> $/, mark);
  // The same turn went on: its totals count the calls made before the stop.
  assert.match(screen.slice(mark), /^\(3 model calls, 2 tool calls, /m);
  mark = screen.length;

  pty.type('/exit\r');
  const { code, output } = await pty.exited;
  assert.equal(code, 0, output);
  const id = /go on with it: kowalski chat --session (c[0-9a-z]+)/.exec(output)?.[1];
  assert.ok(id !== undefined, output);

  // A new process: the history first (stdin is not a terminal and closed, so it leaves at once).
  const again = await cli(home, ['chat', '--session', id]);
  assert.equal(again.code, 0, outputOf(again));
  const lines = again.stdout.split('\n');
  assert.equal(lines[0], `session ${id} with helper, 2 turns`);
  assert.equal(lines[1], 'you> list files');
  assert.match(lines[2]!, /^ {2}\[list_dir\] \{"path":"\."\} -> "\." holds 1 entries/);
  assert.equal(lines[3], 'helper> You have one file, a.txt.');
  assert.equal(lines[4], 'you> read it all');
  assert.match(again.stdout, /^ {2}\[read_file\] \{"path":"a\.txt"\} -> /m);
  assert.match(again.stdout, /^helper> Finished after all\.$/m);
  assert.doesNotMatch(again.stdout, /type \/continue/, 'the turn that had stopped is done now');
});

test('Ctrl-C mid-turn leaves the turn open, says so, and the next start goes on with it', async (t) => {
  // The first call streams slowly (it is cut); the call made again after the restart answers at once.
  let calls = 0;
  let called!: () => void;
  const firstCall = new Promise<void>((resolve) => (called = resolve));
  const { home } = await chatHome(t, (): FakeTurn => {
    called();
    return ++calls === 1 ? { text: 'never finished', chunkDelayMs: 5000 } : { text: 'Here it is.' };
  }, {
    helper: profile('helper', 'tools = []'),
  });
  const pty = startPty(home, ['chat', '--agent', 'helper']);
  cleanups(t)(() => {
    if (pty.child.exitCode === null) pty.child.kill('SIGKILL');
  });
  const mark = (await pty.until(/you> $/)).length;
  pty.type('slow one\r');
  await pty.until(/slow one\n/, mark);
  // Typed while the turn runs: the model call is under way (the fake has it).
  await firstCall;
  pty.type('\u0003');
  const { code, output } = await pty.exited;
  assert.equal(code, 1, output);
  const id = /stopped; the turn stays open and goes on at the next start \(`kowalski chat --session (c[0-9a-z]+)`/.exec(output)?.[1];
  assert.ok(id !== undefined, output);

  const again = await cli(home, ['chat', '--session', id]);
  assert.equal(again.code, 0, outputOf(again));
  assert.match(again.stdout, /^you> slow one\n {2}\(under way\)\n\(turn 1 is still under way; it goes on here\)\nhelper> Here it is\.\n/m);
  assert.equal(calls, 2);
});
