/**
 * How a long operation (backup, restore, `store copy`, vault reindex) tells its caller how
 * far it got. The operation calls it synchronously and cheaply: no I/O is done only to
 * count, so `total` is `null` when it is not known without extra work.
 */

/** One report: `done` of `total` units of `phase` (e.g. 120 of 400 files). */
export interface ProgressReport {
  /** What is being done, as the operation names it: `files`, `rows`, `notes`, `embedded`… */
  phase: string;
  /** Units done so far in this phase. */
  done: number;
  /** Units this phase will do; `null` when unknown. */
  total: number | null;
  /** The item just done (a file's name, a table), when there is one. */
  item?: string;
}

/** Called as the work advances; a listener must not throw (the operation does not catch it). */
export type Progress = (p: ProgressReport) => void;
