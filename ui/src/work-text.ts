/** A `work` frame in words, for the progress bar (components/work-progress.tsx). */
import type { WorkFrame } from './types.js';

/** A count as format.ts's formatCount writes it (thousands grouped alike in every locale); not imported, so Node's tests load this file alone. */
const count = (n: number): string => n.toLocaleString('en-US');

/** The phases the server names (engine: vault reindex, plugin discovery; bundles: the check of an upload), in words. */
const PHASE_LABEL: Record<string, string> = {
  start: 'Starting',
  notes: 'Reading notes',
  embedded: 'Embedding notes',
  packages: 'Checking plugin packages',
  folders: 'Checking plugin folders',
  entries: 'Unpacking the bundle',
  files: 'Staging its files',
  horde: 'Checking the horde',
};

/** "Embedding notes: 120 of 400", "Reading notes: 37", or the phase's own name when it has no words here. */
export function workText(frame: Pick<WorkFrame, 'phase' | 'done' | 'total'>): string {
  const label = PHASE_LABEL[frame.phase] ?? frame.phase;
  return frame.total === null ? `${label}: ${count(frame.done)}` : `${label}: ${count(frame.done)} of ${count(frame.total)}`;
}
