/**
 * A run input that names a vault note instead of a file: `vault:<note>`, the note's path
 * inside the vault (`vault:watchlist.md`, `vault:trading/watchlist.md`). The engine checks
 * that the note exists before the run starts; the step reads it through the vault, whose
 * path rules apply (no `..`, no absolute path, no hidden or linked-out note, a `.md` note).
 */
export const VAULT_INPUT_PREFIX = 'vault:';

/** The note path of a `vault:<note>` answer (trimmed), or undefined when the answer is not one. */
export function vaultNoteOf(value: string): string | undefined {
  const raw = value.trim();
  return raw.startsWith(VAULT_INPUT_PREFIX) ? raw.slice(VAULT_INPUT_PREFIX.length).trim() : undefined;
}
