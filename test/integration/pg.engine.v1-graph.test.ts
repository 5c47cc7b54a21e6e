/** engine.v1-graph.test.ts again, with every engine's runs on the Postgres store (a throwaway cluster). */
process.env.KOWALSKI_TEST_STORE = 'postgres';
await import('./engine.v1-graph.test.js');
