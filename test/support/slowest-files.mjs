/**
 * A test reporter that prints, once the suite is done, the files that took longest from
 * their start to their end (wall time, their process's start included), so each CI log
 * says where the suite's time goes. Used beside `spec` by `npm test`.
 */
const SHOWN = 15;

export default async function* slowestFiles(source) {
  const started = new Map();
  const took = [];
  for await (const event of source) {
    const { name, file } = event.data ?? {};
    if (file === undefined || name !== file) continue;
    if (event.type === 'test:dequeue') started.set(file, performance.now());
    else if (event.type === 'test:complete' && started.has(file)) took.push([file, performance.now() - started.get(file)]);
  }
  if (took.length === 0) return;
  took.sort((a, b) => b[1] - a[1]);
  const total = took.reduce((sum, [, ms]) => sum + ms, 0);
  const root = `${process.cwd()}/`;
  // One write: the spec reporter's own summary goes to the same stream at the same time.
  const lines = took.slice(0, SHOWN).map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)}  ${file.startsWith(root) ? file.slice(root.length) : file}\n`);
  yield `\nthe ${Math.min(SHOWN, took.length)} slowest of ${took.length} test files (wall time, s; all files together ${(total / 1000).toFixed(0)} s):\n${lines.join('')}`;
}
