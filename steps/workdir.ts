/**
 * The run's folders, made where the step runs (a pool thread or an isolated child), not
 * on the engine's thread: `<runDir>` and its workdir, before the step's kind starts. Two
 * plain mkdirs cost a third of one recursive mkdir (90 against 250 µs here); the
 * recursive one is the fallback for a workdir nested deeper or a runs folder that is
 * gone. A thread remembers the folders it made: a mkdir that finds the folder there still
 * costs a syscall and a thrown error, and measured ~35 µs per step in a pool thread
 * (~200 µs in a profile of W1, where it sat on every step's path). Once a step of the run
 * has passed, the engine says so in the task (`foldersMade`) and no thread looks again:
 * with several threads, most of a run's steps land on one that has not seen the run.
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

/** The run folders one thread (or child) has made, so each run's are made once there (bounded: forgotten wholesale past `max`). */
export class RunFolders {
  private readonly made = new Set<string>();

  constructor(private readonly max = 4096) {}

  ensure(runDir: string, workdir: string): void {
    if (this.made.has(workdir)) return;
    mkdirOnce(runDir);
    if (workdir !== runDir) mkdirOnce(workdir);
    if (this.made.size >= this.max) this.made.clear();
    this.made.add(workdir);
  }
}
