import type { RunState } from '../../actors/index.js';
import { KowalskiError } from '../../core/index.js';

/**
 * Which node executes a run. With the SQLite store there is one node (the data folder's
 * lock makes sure of it) and every run is its own: `soleNode`. With the Postgres store
 * several nodes share the runs; each run is executed by the node holding its lease
 * (store/pg/leases.ts), and every commit is fenced: it is refused when a run it writes is
 * no longer this node's at the epoch it took.
 */
export interface RunLeases {
  /** A new run: its lease starts with its first commit. */
  created(runId: string): void;
  /** Take a run this node is about to load (a parked run to approve, an unfinished one to resume); throws KW_ERR_RUN_ELSEWHERE while another live node holds it. */
  claim(runId: string): void;
  /** This node dropped the run (finished, or parked with nothing running): any node may take it now. */
  release(runId: string): void;
  /**
   * Inside a commit's transaction, before its writes: refuse the whole commit when one of
   * these runs is no longer this node's. A run the commit finishes is released in it.
   */
  fence(batches: ReadonlyArray<{ runId: string; state: RunState }>): void;
}

/** One node owns every run: nothing to claim, nothing to fence. */
export const soleNode: RunLeases = {
  created: () => undefined,
  claim: () => undefined,
  release: () => undefined,
  fence: () => undefined,
};

/** KW_ERR_RUN_ELSEWHERE from a claim: the run is another live node's (`holder`, when known), to whom an operator's action can be forwarded. */
export class RunHeldElsewhere extends KowalskiError {
  constructor(runId: string, readonly holder: string | undefined, url: string | undefined) {
    const who = holder === undefined ? 'another node' : `node ${holder}${url === undefined ? '' : ` (${url})`}`;
    super('KW_ERR_RUN_ELSEWHERE', `run ${runId} is being executed by ${who}; ask that node, or try again once it has parked or finished the run`);
  }
}
