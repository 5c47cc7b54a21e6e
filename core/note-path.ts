/**
 * A `vault_note` step's note path: `{{date}}` (the run's day, UTC, `2026-12-05`) and
 * `{{run_id}}` are the placeholders it takes, filled when the step runs. The loader checks
 * the path with them filled in, and refuses any other `{{…}}`.
 */
const NOTE_PLACEHOLDERS = ['date', 'run_id'] as const;

/** The path with its placeholders filled. */
export function fillNotePath(template: string, values: { date: string; runId: string }): string {
  return template.replaceAll('{{date}}', values.date).replaceAll('{{run_id}}', values.runId);
}

/** The `{{…}}` of a note path that are not its placeholders. */
export function unknownNotePlaceholders(template: string): string[] {
  return [...template.matchAll(/\{\{[^}]*\}\}/g)].map((m) => m[0]).filter((p) => !NOTE_PLACEHOLDERS.some((n) => p === `{{${n}}}`));
}
