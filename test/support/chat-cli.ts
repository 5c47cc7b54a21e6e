/** `kowalski chat` tests: a data directory whose team and config.toml point at a scripted fake Ollama, and a script keyed by the message. */
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { writeTeam } from '../../testkit/chat.js';
import { cliSandbox } from '../../testkit/cli.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript, FakeTurn } from '../../testkit/fake-models.js';
import { cleanups } from '../../testkit/cleanup.js';

export interface ChatHome {
  home: string;
  /** The file tools' root (holds a.txt). */
  files: string;
  server: FakeModelServer;
}

/**
 * Script the fake by the message an agent was given (the user's message, or a delegated
 * task: the last `user` message) and how many times it answered since.
 */
export function byMessage(turns: Record<string, FakeTurn[]>): FakeScript {
  return (body) => {
    const messages: any[] = body?.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const text = String(messages[lastUser]?.content ?? '');
    const i = messages.slice(lastUser).filter((m) => m.role === 'assistant').length;
    return turns[text]?.[i] ?? { status: 400, error: `fake: no answer ${i} to ${JSON.stringify(text)}` };
  };
}

/** A data directory (not opened) with these profiles, the fake as its default model, and `[chat]` settings. */
export async function chatHome(t: TestContext, script: FakeScript, profiles: Record<string, string>, chatToml = ''): Promise<ChatHome> {
  const { root, home } = cliSandbox(t);
  const server = await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const files = path.join(root, 'files');
  fs.mkdirSync(files);
  fs.writeFileSync(path.join(files, 'a.txt'), 'hello\n');
  writeTeam(home, profiles);
  fs.writeFileSync(path.join(home, 'config.toml'),
    `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n[chat]\n${chatToml}\n`);
  return { home, files, server };
}
