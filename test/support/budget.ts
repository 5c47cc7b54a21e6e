/** Budget tests' setup: a data folder whose config.toml points at a fake Ollama, and a horde of three model steps. */
import fs from 'node:fs';
import path from 'node:path';
import { writeHorde } from './engine.js';

/** Every answer: 100 tokens in, 50 out, no tool call. */
export const ANSWER = { text: 'Done.', usage: { input: 100, output: 50 } };

/** `<home>/config.toml`: the default model on the fake Ollama at `url`, then `extra` (e.g. a `[budget]`). */
export function writeModelConfig(home: string, url: string, extra = ''): void {
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${url}"\n${extra}`);
}

/** `<home>/hordes/<id>`: ingest (input `topic`), then three model steps a, b, c; `budget` is the horde's [budget] (TOML lines). */
export function writeModelHorde(home: string, id: string, budget: string): void {
  const dir = path.join(home, 'hordes', id);
  const step = 'kind = "process"\nprompt_file = "prompts/p.md"';
  writeHorde(dir, `id = "${id}"\npipeline = ["intake", "a", "b", "c"]\n${budget}`, {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"', a: step, b: step, c: step,
  });
  fs.mkdirSync(path.join(dir, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'prompts', 'p.md'), 'Say done.');
}
