/** Chat tests: an engine on a temp data dir whose team has the given profiles, its model a scripted fake Ollama. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { createEngine } from '../engine/index.js';
import type { Engine, EngineOptions } from '../engine/index.js';
import { startFakeOllama } from './fake-models.js';
import type { FakeModelServer, FakeScript, FakeTurn } from './fake-models.js';
import { cleanups } from './cleanup.js';
import { testOwnCode } from './dist.js';

export interface ChatSetup {
  engine: Engine;
  server: FakeModelServer;
  home: string;
  /** The tools root (file tools). */
  files: string;
}

/** A profile file: TOML keys (already formatted) and the system prompt, whose first line names the agent for the fake script. */
export function profile(name: string, keys: string, prompt = `You are ${name}.`): string {
  return `---\nname = "${name}"\ndescription = "the ${name} agent"\n${keys}\n---\n${prompt}\n`;
}

export function writeTeam(home: string, profiles: Record<string, string>): void {
  fs.mkdirSync(path.join(home, 'team'), { recursive: true });
  for (const [name, text] of Object.entries(profiles)) fs.writeFileSync(path.join(home, 'team', `${name}.md`), text);
}

/** The agent a request to the fake server is from: the first line of its system prompt ("You are NAME."). */
export function agentOf(body: any): string {
  const system = String(body?.messages?.[0]?.content ?? '');
  return /^You are ([a-z][a-z0-9-]*)\./.exec(system)?.[1] ?? '?';
}

/** Script the fake per agent: each agent's turns in order (of that agent's conversation, by its assistant messages). */
export function perAgent(turns: Record<string, FakeTurn[]>): FakeScript {
  return (body) => {
    const agent = agentOf(body);
    // Earlier turns of the session appear as assistant messages too: count only this turn's (after the last user message; tool results are `tool` messages).
    const messages: any[] = body?.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const i = messages.slice(lastUser).filter((m) => m.role === 'assistant').length;
    return turns[agent]?.[i] ?? { status: 500, error: `fake: no turn ${i} for agent ${agent}` };
  };
}

export async function chatSetup(t: TestContext, script: FakeScript, profiles: Record<string, string>, extraConfig = '', home?: string, options: Partial<EngineOptions> = {}): Promise<ChatSetup> {
  const server = await startFakeOllama(script);
  const own = home === undefined;
  const dir = home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kw-chat-'));
  // The file tools never touch the data folder: their root is beside it.
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-chat-files-'));
  writeTeam(dir, profiles);
  fs.writeFileSync(path.join(dir, 'config.toml'),
    `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n${extraConfig}`);
  const engine = await createEngine({ ownCode: testOwnCode(), ...options, dataDir: dir });
  cleanups(t)(async () => {
    await engine.close();
    await server.close();
    if (own) fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(files, { recursive: true, force: true });
  });
  return { engine, server, home: dir, files };
}
