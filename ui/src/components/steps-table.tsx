/** A horde's steps: name, kind, verify command, output. */
import type { HordeDetail } from '../types';

export function StepsTable({ horde }: { horde: HordeDetail }) {
  const byName = new Map(horde.steps.map((s) => [s.name, s]));
  const ordered = horde.pipeline.map((n) => byName.get(n)).filter((s) => s !== undefined);
  if (ordered.length === 0) return <p class="muted">This horde has no steps.</p>;
  return (
    <div class="table-wrap">
      <table class="table" data-testid="steps-table">
        <thead>
          <tr><th scope="col">Step</th><th scope="col">Kind</th><th scope="col">Verify command</th><th scope="col">Output</th></tr>
        </thead>
        <tbody>
          {ordered.map((s) => (
            <tr key={s.name}>
              <th scope="row">
                <code>{s.name}</code>
                {s.displayName !== '' && s.displayName !== s.name && <div>{s.displayName}</div>}
                {s.description !== undefined && s.description !== '' && <div class="muted small">{s.description}</div>}
              </th>
              <td>
                {s.kind}
                {s.isolation === 'process' && <div class="muted small">own process</div>}
                {s.model !== undefined && <div class="muted small">model {s.model}</div>}
              </td>
              <td>{s.verifyCommand === undefined ? <span class="muted">—</span> : <code class="cmd">{s.verifyCommand}</code>}</td>
              <td><code>{s.output}</code></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
