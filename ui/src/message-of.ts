/** A thrown value's message, for display: an Error's `message`, anything else as `String(err)` (the server's is core/errors.ts; the app may not import core). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
