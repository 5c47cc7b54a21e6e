/**
 * The run's folders, made where the step runs (a pool thread or an isolated child), not
 * on the engine's thread: `<runDir>` and its workdir, before the step's kind starts. Two
 * plain mkdirs cost a third of one recursive mkdir (90 against 250 µs here); the
 * recursive one is the fallback for a workdir nested deeper or a runs folder that is
 * gone. Once a step of the run has passed, the engine says so in the task
 * (`foldersMade`) and the folders are not looked at again: a mkdir that finds the folder
 * there still costs a syscall and a thrown error (~15 µs for the two here), and with
 * several pool threads most of a run's steps land on one that has not seen the run.
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

/** Make `<runDir>` and the run's workdir, where they are not there yet. */
export function makeRunFolders(runDir: string, workdir: string): void {
  mkdirOnce(runDir);
  if (workdir !== runDir) mkdirOnce(workdir);
}
