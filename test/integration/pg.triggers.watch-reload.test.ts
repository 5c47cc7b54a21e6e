/** triggers.watch-reload.test.ts again, with every engine's runs on the Postgres store (a throwaway cluster). */
process.env.KOWALSKI_TEST_STORE = 'postgres';
await import('./triggers.watch-reload.test.js');
