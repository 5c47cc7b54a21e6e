/** A `work` frame in words, for the progress bar (components/work-progress.tsx). */
import { formatCount } from './format';
import type { WorkFrame } from './types';

/** The phases the server names (engine: vault reindex, plugin discovery), in words. */
const PHASE_LABEL: Record<string, string> = {
  start: 'Starting',
  notes: 'Reading notes',
  embedded: 'Embedding notes',
  packages: 'Checking plugin packages',
  folders: 'Checking plugin folders',
};

/** "Embedding notes: 120 of 400", "Reading notes: 37", or the phase's own name when it has no words here. */
export function workText(frame: Pick<WorkFrame, 'phase' | 'done' | 'total'>): string {
  const label = PHASE_LABEL[frame.phase] ?? frame.phase;
  return frame.total === null ? `${label}: ${formatCount(frame.done)}` : `${label}: ${formatCount(frame.done)} of ${formatCount(frame.total)}`;
}
