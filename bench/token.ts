/**
 * The API token of a bench's servers (every route needs one, on loopback too): one fixed
 * value, so a bench's child processes and its driver agree without passing it around.
 */
export const BENCH_TOKEN = 'kw-bench-token-0123456789abcdefghijklmno';
export const BENCH_AUTH = { authorization: `Bearer ${BENCH_TOKEN}` } as const;
