/** The public face of the vault's search (docs/vault-search.md). */
export { createVaultSearch, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './vault-search.js';
export type { VaultSearch, VaultSearchOptions, VaultSearchStatus } from './vault-search.js';
export type { SemanticConfig, SemanticStatus } from './semantic-index.js';
export type { RescanResult } from './rescan.js';
export { fuseRanks, RRF_K } from './rrf.js';
export { chunksOf, titleOf, MAX_CHUNK_CHARS } from './chunks.js';
export { queryTerms } from './keyword-index.js';
export { followWrites } from './write-follower.js';
export type { WriteLog } from './write-follower.js';
