/** crash.commands.test.ts again, with the run store on Postgres: the killed child and its restart reach the data folder's database (a throwaway cluster). */
process.env.KOWALSKI_TEST_STORE = 'postgres';
await import('./crash.commands.test.js');
