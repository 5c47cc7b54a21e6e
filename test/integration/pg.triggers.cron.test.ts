/** triggers.cron.test.ts again, with every engine's runs on the Postgres store (a throwaway cluster). */
process.env.KOWALSKI_TEST_STORE = 'postgres';
await import('./triggers.cron.test.js');
