/**
 * The "wide" horde of issue 19: one agents file as large as the loader reads (1 MiB),
 * holding ~28,000 problems, one per line, with one non-ASCII character (which makes the
 * whole text a two-byte string). The step names are pseudo-random, so a bundle of it
 * stays inside every size and ratio limit.
 */
import { createHash } from 'node:crypto';
import { zipSync } from 'fflate';

/** What the loader reads at most of one file (MAX_MD_BYTES). */
const FILE_BYTES = 1024 * 1024;

export interface WideHorde {
  /** relative path → content */
  files: Record<string, string>;
  /** The step whose file is wide (`agents/<step>.md`). */
  step: string;
  /** Every problem the loader finds: one bad `timeout_secs`, then one per `context_paths` entry. */
  problems: number;
  /** The file line of `timeout_secs` and of `context_paths = [`. */
  timeoutLine: number;
  contextLine: number;
}

/** `problems` is about how many problems (default 28,000); the file is filled to just under 1 MiB. */
export function wideHorde(id = 'wide', problems = 28_000): WideHorde {
  const step = 'wide';
  const head = `---\nname = "${step}"\nkind = "verify"\nverify_command = "true"\ndescription = "a wide file — 28,000 problems"\ntimeout_secs = "soon"\ncontext_paths = [\n`;
  const tail = ']\n---\n';
  const budget = FILE_BYTES - Buffer.byteLength(head) - Buffer.byteLength(tail) - 1;
  const count = problems - 1;
  const perLine = Math.floor(budget / count);
  let seed = 0x2545f491;
  const letter = (): string => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return String.fromCharCode(97 + ((seed >>> 16) % 26));
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const prefix = `  "@step:gone-${i}-`;
    const pad = Math.max(1, perLine - prefix.length - 4);
    lines.push(`${prefix}${Array.from({ length: pad }, letter).join('')}@",`);
  }
  const agent = `${head}${lines.join('\n')}\n${tail}`;
  return {
    files: { 'horde.md': `---\nid = "${id}"\npipeline = ["${step}"]\n---\n# Wide\n`, [`agents/${step}.md`]: agent },
    step,
    problems: count + 1,
    timeoutLine: 6,
    contextLine: 7,
  };
}

/** The files as a `.kwf.zip` with a manifest that agrees with them (so only the horde's problems refuse it). */
export function wideBundle(wide: WideHorde, hordeId: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const [rel, text] of Object.entries(wide.files)) files[rel] = Buffer.from(text);
  const manifest = {
    format: 1, hordeId, tools: [], mcpServers: [], commands: ['true'],
    files: Object.entries(files)
      .map(([p, d]) => ({ path: p, bytes: d.length, sha256: createHash('sha256').update(d).digest('hex') }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
  return zipSync({ ...files, 'kwf-manifest.json': Buffer.from(JSON.stringify(manifest)) });
}
