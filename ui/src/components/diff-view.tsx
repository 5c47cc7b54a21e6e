/** A unified diff, each line marked added, removed or context; text only (note contents are untrusted). */
export function DiffView({ diff, testId }: { diff: string; testId?: string }) {
  // The `Index:` banner and its `===` rule say nothing the `---`/`+++` lines do not.
  const lines = diff.replace(/\n$/, '').split('\n').filter((l) => !l.startsWith('Index: ') && !/^=+$/.test(l));
  return (
    <pre class="diff" data-testid={testId}>
      {lines.map((line, i) => {
        const kind = line.startsWith('+++') || line.startsWith('---') ? 'file'
          : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
        return <span key={i} class={`diff__line diff__line--${kind}`}>{line === '' ? ' ' : line}</span>;
      })}
    </pre>
  );
}
