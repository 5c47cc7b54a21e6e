/** The problems of agent profile files, each as `file:line key — message CODE`; the line can be a button that jumps to it in the editor. */
import type { TeamProblem } from '../types';

const baseName = (file: string): string => file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);

export function AgentProblemList({ problems, onLine, testId }: { problems: TeamProblem[]; onLine?: (line: number) => void; testId?: string }) {
  if (problems.length === 0) return null;
  return (
    <ul class="problems" data-testid={testId}>
      {problems.map((p, i) => (
        <li key={i} class="problem problem--error" data-code={p.code}>
          <code title={p.file}>{baseName(p.file)}</code>
          {p.line !== undefined && (onLine === undefined
            ? <code>:{p.line}</code>
            : <> <button type="button" class="btn btn--small btn--ghost problem__line" onClick={() => onLine(p.line!)}>line {p.line}</button></>)}
          {p.key !== undefined && <> <code>{p.key}</code></>} — {p.message} <code class="muted">{p.code}</code>
        </li>
      ))}
    </ul>
  );
}
