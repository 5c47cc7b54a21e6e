/**
 * The edges of a Rookery draft as rows (from, to, when, max loops): none is a straight line
 * in step order; an edge back to an earlier step needs `fail`/`pass` and a cap. "Save edges"
 * sends the draft with exactly these edges.
 */
import { useEffect, useState } from 'preact/hooks';
import { InlineProblems } from './draft-parts';
import type { DraftEdge, DraftProblem, EdgeWhen } from '../types';

interface EdgesProps {
  edges: DraftEdge[];
  steps: string[];
  problems: DraftProblem[];
  busy: boolean;
  onSave(edges: DraftEdge[]): void;
}

const WHEN: EdgeWhen[] = ['always', 'pass', 'fail'];

export function DraftEdgesForm({ edges, steps, problems, busy, onSave }: EdgesProps) {
  const [rows, setRows] = useState(edges);
  useEffect(() => setRows(edges), [edges]);
  const change = (i: number, patch: Partial<DraftEdge>) => setRows((r) => r.map((e, j) => (j === i ? { ...e, ...patch } : e)));
  const pick = (label: string, value: string, onPick: (v: string) => void, testId: string) => (
    <select aria-label={label} value={value} onChange={(e) => onPick((e.target as HTMLSelectElement).value)} data-testid={testId}>
      {!steps.includes(value) && <option value={value}>{value || '—'}</option>}
      {steps.map((s) => <option key={s} value={s}>{s}</option>)}
    </select>
  );

  return (
    <form class="panel draft-edges" data-testid="draft-edges" onSubmit={(e) => { e.preventDefault(); onSave(rows); }}>
      <h3>Edges</h3>
      <InlineProblems problems={problems} />
      {rows.length === 0 && <p class="muted small">No edges: the steps run in a straight line, top to bottom.</p>}
      {rows.map((e, i) => (
        <div key={i} class="draft-edge" data-testid="draft-edge">
          {pick(`Edge ${i + 1} from`, e.from, (from) => change(i, { from }), 'draft-edge-from')}
          <span aria-hidden="true">→</span>
          {pick(`Edge ${i + 1} to`, e.to, (to) => change(i, { to }), 'draft-edge-to')}
          <select aria-label={`Edge ${i + 1} when`} value={e.when ?? 'always'} onChange={(ev) => change(i, { when: (ev.target as HTMLSelectElement).value as EdgeWhen })} data-testid="draft-edge-when">
            {WHEN.map((w) => <option key={w} value={w}>{w}</option>)}
          </select>
          <input aria-label={`Edge ${i + 1} max loops`} type="number" min={1} max={100} placeholder="max loops" value={e.max_loops ?? ''}
            onInput={(ev) => {
              const n = Number((ev.target as HTMLInputElement).value);
              change(i, { max_loops: Number.isInteger(n) && n > 0 ? n : undefined });
            }} data-testid="draft-edge-loops" />
          <button type="button" class="btn btn--small btn--ghost" onClick={() => setRows((r) => r.filter((_, j) => j !== i))} aria-label={`Remove edge ${i + 1}`}>✕</button>
        </div>
      ))}
      <div class="draft-edges__actions">
        <button type="button" class="btn btn--small" disabled={steps.length < 2}
          onClick={() => setRows((r) => [...r, { from: steps[0] ?? '', to: steps[1] ?? '', when: 'always' }])} data-testid="draft-edge-add">Add edge</button>
        <button type="submit" class="btn btn--small btn--primary" disabled={busy} data-testid="draft-edges-save">Save edges</button>
      </div>
    </form>
  );
}
