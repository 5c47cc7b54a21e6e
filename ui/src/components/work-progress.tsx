/**
 * A bar for long work the server does (`work` frames of one op on the app's socket): how far
 * a vault reindex or a plugin rescan got, with its phase in words — "Embedding notes: 120 of
 * 400" — a `<progress>` with value and max when the total is known, indeterminate when not.
 * Shown while that work runs, whoever started it; `running` (this screen's request is in
 * flight) shows it at once, before the first frame arrives.
 */
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { useServices } from '../services';
import type { WorkFrame, WorkOp } from '../types';
import { workText } from '../work-text';

export function WorkProgress({ op, running = false }: { op: WorkOp; running?: boolean }) {
  const { socket } = useServices();
  const [frame, setFrame] = useState<WorkFrame | null>(null);
  useEffect(() => socket.onWork((f) => { if (f.op === op) setFrame(f); }), [socket, op]);
  // A new request of this screen: what an earlier run said no longer counts. A layout effect runs
  // in the render that follows the click, before the socket can hand over a frame of this run; a
  // plain effect waits for a paint, and a frame that came first would be wiped and never resent.
  useLayoutEffect(() => { if (running) setFrame(null); }, [running]);
  const active = frame === null ? running : !frame.finished;
  if (!active) return null;
  const known = frame !== null && frame.total !== null && frame.total > 0;
  return (
    <div class="work-progress" role="status" data-testid={`work-progress-${op}`} data-phase={frame?.phase ?? 'start'}>
      {known
        ? <progress value={frame.done} max={frame.total!} aria-label={workText(frame)} />
        : <progress aria-label={frame === null ? 'Starting' : workText(frame)} />}
      <span class="work-progress__text">{frame === null ? 'Starting…' : workText(frame)}</span>
    </div>
  );
}
