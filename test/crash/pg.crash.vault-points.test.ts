/** crash.vault-points.test.ts again, with the store on Postgres: the vault's audit of the killed child and of its restart is the shared `note_writes`. */
process.env.KOWALSKI_TEST_STORE = 'postgres';
await import('./crash.vault-points.test.js');
