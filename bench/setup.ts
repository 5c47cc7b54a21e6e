/**
 * What every workload needs: temporary folders, horde folders written on the fly, the
 * engine options (config and the bench's own step kinds, found next to this module
 * with its own extension: `.js` under dist/, `.ts` under tsx).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONFIG } from '../engine/index.js';
import type { EngineConfig, EngineOptions, StepKindInfo } from '../engine/index.js';

export type Sync = 'full' | 'normal';

/** A module of bench/ given without extension (`kinds/noop`), with the caller's extension. */
export function benchModule(relativeNoExt: string): string {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`./${relativeNoExt}${ext}`, import.meta.url));
}

/** The bench's step kinds: `noop` passes at once, `slow` sleeps $KW_BENCH_SLEEP_MS. */
export function benchKinds(): StepKindInfo[] {
  return [
    { kind: 'noop', module: benchModule('kinds/noop'), usesModel: false, idempotent: true, runsCommand: false },
    { kind: 'slow', module: benchModule('kinds/sleep'), usesModel: false, idempotent: true, runsCommand: false },
    { kind: 'write', module: benchModule('kinds/write'), usesModel: false, idempotent: true, runsCommand: false },
  ];
}

/** Where the runs are stored: absent, SQLite in the data folder; else a Postgres database (`[store] url`) and, for several nodes, the run folders they share (`[store] files`). */
export interface BenchStore {
  url: string;
  files?: string;
}

export function benchConfig(synchronous: Sync, maxParallelSteps: number, store?: BenchStore): EngineConfig {
  return { ...DEFAULT_CONFIG, store: { ...DEFAULT_CONFIG.store, synchronous, ...store }, runs: { maxParallelSteps, stepTimeoutSecs: 600 } };
}

export function engineOptions(dataDir: string, synchronous: Sync, maxParallelSteps: number, store?: BenchStore): EngineOptions {
  return { dataDir, config: benchConfig(synchronous, maxParallelSteps, store), extraStepKinds: benchKinds() };
}

/** A fresh folder under the system's temp dir. */
export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `kw-bench-${label}-`));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export interface StepSpec {
  name: string;
  kind: string;
  /** Extra TOML lines for the agent file's front matter. */
  extra?: string;
}

/** Write a horde folder (a plain pipeline: each step after the one before) and return its path. */
export function writeHorde(parent: string, id: string, steps: StepSpec[]): string {
  const dir = path.join(parent, id);
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  const pipeline = steps.map((s) => JSON.stringify(s.name)).join(', ');
  fs.writeFileSync(path.join(dir, 'horde.md'), `---\nid = "${id}"\npipeline = [${pipeline}]\n---\n\nA benchmark horde.\n`);
  for (const s of steps) {
    fs.writeFileSync(path.join(dir, 'agents', `${s.name}.md`), `---\nname = "${s.name}"\nkind = "${s.kind}"\n${s.extra ?? ''}\n---\n`);
  }
  return dir;
}

/** Six no-op steps, s1 … s6. */
export function noopSteps(): StepSpec[] {
  return [1, 2, 3, 4, 5, 6].map((i) => ({ name: `s${i}`, kind: 'noop' }));
}

/** A verify step that runs `true`: parks for the operator's approval (confirm_commands stays on). */
export function verifyStep(name: string): StepSpec {
  return { name, kind: 'verify', extra: 'verify_command = "true"' };
}
