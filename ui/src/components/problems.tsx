/** A horde's problems, each as `file:line key — message`. */
import type { Problem } from '../types';

export function problemWhere(p: Problem): string {
  return `${p.file}${p.line === undefined ? '' : `:${p.line}`}${p.key === undefined ? '' : ` ${p.key}`}`;
}

export function ProblemList({ problems }: { problems: Problem[] }) {
  if (problems.length === 0) return null;
  return (
    <ul class="problems">
      {problems.map((p, i) => (
        <li key={i} class={`problem problem--${p.severity}`}>
          <span class="problem__severity">{p.severity}</span>{' '}
          <code>{problemWhere(p)}</code> — {p.message} <code class="muted">{p.code}</code>
        </li>
      ))}
    </ul>
  );
}
