/**
 * The horde loader fuzzed: mutated horde.md and agents/*.md texts (from the built-in hordes
 * and the test fixtures) through the loader's own pure parts in process — the front matter
 * split, the typed fields, the pipeline, edges, triggers, steps and placeholders, the
 * problem list — and every `--folders-every`th input through `loadHorde` on a real folder.
 * A problem must carry a known code, its file and a line inside that file; nothing may throw.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isErrorCode, STEP_KINDS } from '../../core/index.js';
import type { Problem } from '../../core/index.js';
import { DEFAULT_KNOWN_TOOLS, Fields, formatProblems, loadHorde, MAX_PROBLEMS, ProblemList, Source, splitFrontMatter } from '../../engine/horde/index.js';
import { buildEdges, readPipeline } from '../../engine/horde/graph.js';
import { checkPlaceholders, readStep } from '../../engine/horde/steps.js';
import { readTriggers } from '../../engine/horde/triggers.js';
import type { StepDef } from '../../core/index.js';
import { numberOption } from '../args.js';
import type { Rng } from './rng.js';
import { mutateText, randomString } from './rng.js';
import type { FuzzTarget } from './target.js';

const FOLDERS_EVERY = numberOption('folders-every', 100);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const KNOWN_KINDS: ReadonlySet<string> = new Set(STEP_KINDS);

const KEYS = ['id', 'pipeline', 'edges', 'from', 'to', 'when', 'max_loops', 'triggers', 'name', 'kind', 'schedule', 'timezone', 'catch_up', 'path', 'globs',
  'debounce_ms', 'overlap', 'secret_env', 'input', 'enabled', 'confirm_commands', 'workdir', 'delivery_root_rel', 'display_name', 'description', 'prompt_file',
  'tools', 'inputs', 'type', 'isolation', 'verify_command', 'verify_cwd', 'apply_mode', 'model', 'label', 'options', 'placeholder', 'required', 'default'];
const PIECES = ['[[edges]]\n', '[[triggers]]\n', '[[inputs]]\n', '[model]\n', ' = ', '"', "'", "'''", '"""', '[', ']', '{', '}', ',', '\n', '---\n', '+++\n', '#',
  '1979-05-27T07:32:00Z', 'inf', 'nan', '-0', '0x7fffffff', '1e400', '"{input}"', '"{{x}}"', '"@step:a@"', 'true', '[]', '{}', '"../../etc"', '"/abs"',
  ...STEP_KINDS.map((k) => `"${k}"`), '"webhook"', '"cron"', '"watch"', '"pass"', '"fail"', '"always"', '"process"', '"parallel"', '"* * * * *"', '\r\n', '\uFEFF'];
const QUOTED = PIECES.filter((p) => p.startsWith('"'));
const DICTIONARY = [...KEYS.map((k) => `\n${k} = `), ...KEYS, ...PIECES];

interface Horde { manifest: string; agents: Map<string, string> }

/** horde.md and agents/*.md of every horde folder under `dir`. */
function seedsUnder(dir: string): Horde[] {
  const out: Horde[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const folder = path.join(dir, e.name);
    const manifest = ['horde.md', 'app.md'].map((f) => path.join(folder, f)).find((f) => fs.existsSync(f));
    if (!e.isDirectory() || manifest === undefined) continue;
    const agents = new Map<string, string>();
    const agentsDir = path.join(folder, 'agents');
    if (fs.existsSync(agentsDir)) for (const f of fs.readdirSync(agentsDir)) if (f.endsWith('.md')) agents.set(f.slice(0, -3), fs.readFileSync(path.join(agentsDir, f), 'utf8'));
    out.push({ manifest: fs.readFileSync(manifest, 'utf8'), agents });
  }
  return out;
}

/** A random TOML value of any type. */
function tomlValue(rng: Rng, depth = 0): string {
  switch (rng.int(depth > 2 ? 4 : 7)) {
    case 0: return JSON.stringify(randomString(rng));
    case 1: return String(rng.pick([0, -1, 1, 2 ** 53, 1e300, 3.5]));
    case 2: return rng.pick(['true', 'false', 'inf', '-inf', 'nan', '1979-05-27']);
    case 3: return rng.pick(QUOTED);
    case 4: return `[${Array.from({ length: rng.size(6) }, () => tomlValue(rng, depth + 1)).join(', ')}]`;
    case 5: return `{ ${Array.from({ length: rng.size(4) }, () => `${rng.pick(KEYS)} = ${tomlValue(rng, depth + 1)}`).join(', ')} }`;
    default: return JSON.stringify(rng.pick(['a', 'b', 'c']));
  }
}

/** `text` with the values of a few `key = value` lines replaced: the TOML still parses, the horde is checked deeper. */
function swapValues(text: string, rng: Rng): string {
  const lines = text.split('\n');
  const keyed = lines.map((l, k) => (/^\s*[A-Za-z_]+\s*=/.test(l) ? k : -1)).filter((k) => k >= 0);
  for (let r = 0; r < 1 + rng.size(3) && keyed.length > 0; r++) {
    const k = rng.pick(keyed);
    lines[k] = `${lines[k]!.slice(0, lines[k]!.indexOf('='))}= ${tomlValue(rng)}`;
  }
  return lines.join('\n');
}

/** A random front matter of known keys with values of any type: the shapes mutation rarely reaches. */
function generated(rng: Rng): string {
  const lines: string[] = [];
  const n = rng.size(30);
  for (let k = 0; k < n; k++) lines.push(rng.chance(0.1) ? rng.pick(['[[edges]]', '[[triggers]]', '[[inputs]]']) : `${rng.pick(KEYS)} = ${tomlValue(rng)}`);
  return `---\n${lines.join('\n')}\n---\n`;
}

/** One input: the horde's files, some of them mutated or replaced. */
function draw(seeds: readonly Horde[], rng: Rng): Horde {
  const seed = rng.pick(seeds);
  const agents = new Map(seed.agents);
  let manifest = seed.manifest;
  const names = [...agents.keys()];
  const rounds = 1 + rng.size(3);
  for (let r = 0; r < rounds; r++) {
    const which = names.length === 0 || rng.chance(0.4) ? undefined : rng.pick(names);
    const text = which === undefined ? manifest : agents.get(which)!;
    const choice = rng.next();
    const next = choice < 0.1 ? generated(rng) : choice < 0.55 ? swapValues(text, rng) : mutateText(text, rng, DICTIONARY);
    if (which === undefined) manifest = next;
    else agents.set(which, next);
  }
  if (rng.chance(0.05) && names.length > 0) agents.delete(rng.pick(names));
  return { manifest, agents };
}

function checkProblems(problems: readonly Problem[], lines: ReadonlyMap<string, number>, where: string): void {
  if (problems.length > MAX_PROBLEMS) throw new Error(`${where}: ${problems.length} problems, more than ${MAX_PROBLEMS}`);
  for (const p of problems) {
    if (!isErrorCode(p.code)) throw new Error(`${where}: a problem with an unknown code ${String(p.code)}`);
    if (typeof p.message !== 'string' || p.message === '') throw new Error(`${where}: ${p.code} without a message`);
    const max = lines.get(p.file);
    if (p.line !== undefined && (!Number.isInteger(p.line) || p.line < 1 || (max !== undefined && p.line > max))) {
      throw new Error(`${where}: ${p.code} in ${p.file} at line ${p.line}, outside its ${max ?? '?'} lines`);
    }
  }
  formatProblems(problems);
}

/** The loader's per-file work (load.ts without the disk), as it runs it. */
async function loadTexts(h: Horde, dir: string): Promise<Problem[]> {
  const problems = new ProblemList();
  const fieldsOf = (file: string, text: string): { fields: Fields; body: string } | undefined => {
    const split = splitFrontMatter(text);
    if (!split.ok) {
      problems.error('KW_ERR_FRONT_MATTER', { file, line: split.line }, split.message);
      return undefined;
    }
    return { fields: new Fields(split.value.data, new Source(file, split.value.toml, split.value.tomlStartLine), problems), body: split.value.body };
  };
  const horde = fieldsOf('horde.md', h.manifest);
  if (horde === undefined) return problems.reported();
  const pipeline = readPipeline(horde.fields);
  const names = pipeline ?? [];
  const steps = new Map<string, { step: StepDef; fields: Fields }>();
  for (const name of names) {
    const text = h.agents.get(name);
    const read = text === undefined ? undefined : fieldsOf(`agents/${name}.md`, text);
    if (read === undefined) continue;
    const step = await readStep(name, read.fields, read.body, { dir, pipeline: new Set(names), knownKinds: KNOWN_KINDS, knownTools: DEFAULT_KNOWN_TOOLS });
    if (step !== undefined) steps.set(name, { step, fields: read.fields });
    JSON.stringify(step);
  }
  const inputs = [...steps.values()].map((s) => s.step.inputs).find((list) => list.length > 0) ?? [];
  const declared = new Set(inputs.map((i) => i.id));
  for (const { step, fields } of steps.values()) checkPlaceholders(fields, step, declared);
  JSON.stringify(pipeline === undefined ? [] : buildEdges(horde.fields, pipeline));
  JSON.stringify(readTriggers(horde.fields, declared));
  JSON.stringify(horde.fields.unread());
  return problems.reported();
}

function writeFolder(dir: string, h: Horde): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'horde.md'), h.manifest);
  for (const [name, text] of h.agents) fs.writeFileSync(path.join(dir, 'agents', `${name}.md`), text);
}

export async function loaderTarget(dataDir: string): Promise<FuzzTarget> {
  const seeds = [...seedsUnder(path.join(REPO, 'hordes')), ...seedsUnder(path.join(REPO, 'test', 'fixtures', 'hordes'))];
  const empty = path.join(dataDir, 'empty');
  fs.mkdirSync(empty);
  return {
    async one(i, rng) {
      const h = draw(seeds, rng);
      const lines = new Map([['horde.md', h.manifest.split(/\r?\n/).length], ...[...h.agents].map(([n, t]) => [`agents/${n}.md`, t.split(/\r?\n/).length] as const)]);
      const problems = await loadTexts(h, empty);
      checkProblems(problems, lines, 'in process');
      const errors = problems.filter((p) => p.severity === 'error');
      if (FOLDERS_EVERY > 0 && i % FOLDERS_EVERY === 0) {
        const dir = path.join(dataDir, 'horde');
        writeFolder(dir, h);
        const loaded = await loadHorde(dir, { knownKinds: KNOWN_KINDS });
        checkProblems(loaded.ok ? loaded.warnings : loaded.problems, lines, 'loadHorde');
        return loaded.ok ? 'folder: valid' : `folder: ${loaded.problems[0]?.code ?? 'invalid'}`;
      }
      return errors.length === 0 ? 'valid' : errors[0]!.code;
    },
    close: async () => {},
  };
}
