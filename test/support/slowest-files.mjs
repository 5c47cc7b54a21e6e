/**
 * A test reporter that prints, once the suite is done, where its time went (used beside
 * `spec` by `npm test`): the processes node --test started (a test file, or a group of
 * files of test/groups/) by wall time from their start to their end, and the test files by
 * the time their top-level tests took (in a group, without the files' imports; a `pg.*`
 * wrapper's tests count under the file they are written in).
 */
const SHOWN = 15;

export default async function* slowestFiles(source) {
  const started = new Map();
  /** Wall time of each process node --test started: a file, or a group file. */
  const processes = [];
  /** Each test file's tests and suites, their durations summed per nesting level (its top level is its lowest). */
  const files = new Map();
  for await (const event of source) {
    const { name, file, nesting, details } = event.data ?? {};
    if (file === undefined) continue;
    if (name === file) {
      if (event.type === 'test:dequeue') started.set(file, performance.now());
      else if (event.type === 'test:complete' && started.has(file)) processes.push([file, performance.now() - started.get(file)]);
    } else if (event.type === 'test:pass' || event.type === 'test:fail') {
      const levels = files.get(file) ?? new Map();
      levels.set(nesting, (levels.get(nesting) ?? 0) + (details?.duration_ms ?? 0));
      files.set(file, levels);
    }
  }
  if (processes.length === 0) return;
  const root = `${process.cwd()}/`;
  const table = (rows) => rows.sort((a, b) => b[1] - a[1]).slice(0, SHOWN)
    .map(([f, ms]) => `${(ms / 1000).toFixed(1).padStart(7)}  ${f.startsWith(root) ? f.slice(root.length) : f}\n`).join('');
  const sum = (rows) => (rows.reduce((s, [, ms]) => s + ms, 0) / 1000).toFixed(0);
  const byFile = [...files].map(([file, levels]) => [file, levels.get(Math.min(...levels.keys()))]);
  // One write: the spec reporter's own summary goes to the same stream at the same time.
  yield `\nthe ${Math.min(SHOWN, processes.length)} slowest of ${processes.length} test processes (wall time, s; all together ${sum(processes)} s):\n${table(processes)}`
    + `\nthe ${Math.min(SHOWN, byFile.length)} slowest of ${byFile.length} test files (their top-level tests, s; all together ${sum(byFile)} s):\n${table(byFile)}`;
}
