/**
 * Signal a whole process group: `process.kill(-pgid)`. A group already gone is no error;
 * the answer says whether it was there (signal 0 only asks). Never `kill -1` (every
 * process we may signal) or the group of init: a pgid below 2 is refused.
 */
export function killGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!(pgid > 1)) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // the group is already gone (or not ours)
  }
}
