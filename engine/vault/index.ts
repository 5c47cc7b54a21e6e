/** The vault: plain Markdown notes shared by the agents and the user, with an audited, revertible trail of every write kowalski makes. The public face of engine/vault. */
export { createVault, DEFAULT_MAX_NOTE_BYTES, MAX_WRITES_LISTED } from './vault-service.js';
export type { SharedVaultStore, Vault, VaultOptions, WriteFilter } from './vault-service.js';
export { NOTE_WAIT_MS, storeNoteLocks } from './note-locks.js';
export type { NoteLockDeps } from './note-locks.js';
export { VaultConflictError } from './note-writes.js';
export { MAX_VAULT_PATH } from './vault-paths.js';
export type { NoteInfo, NoteLocks, NoteWrite, SearchAnswer, SearchHit, SearchOptions, VaultIndex, VaultRecovery, WriteOp, WriteOrigin, WriteState } from './types.js';
