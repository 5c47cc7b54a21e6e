/**
 * The run's folders, made where the step runs (a pool thread or an isolated child), not
 * on the engine's thread: `<runDir>` and its workdir, before the step's kind starts. Two
 * plain mkdirs cost a third of one recursive mkdir (90 against 250 µs here), and on a
 * folder that exists a few µs; the recursive one is the fallback for a workdir nested
 * deeper or a runs folder that is gone.
 */
import fs from 'node:fs';

function mkdirOnce(dir: string): void {
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT') throw err;
    fs.mkdirSync(dir, { recursive: true });
  }
}

export function makeRunFolders(runDir: string, workdir: string): void {
  mkdirOnce(runDir);
  if (workdir !== runDir) mkdirOnce(workdir);
}
