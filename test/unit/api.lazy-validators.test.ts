/** Route validators compiled at first use answer exactly as Fastify's own, compiled at start. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { createLazyValidators, lazyValidatorOptions } from '../../api/lazy-validators.js';
import type { LazyValidators } from '../../api/lazy-validators.js';

const AJV = { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } } as const;

const BODY = {
  type: 'object', additionalProperties: false, required: ['name'],
  properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 0 }, when: { type: 'string', format: 'date-time' } },
} as const;

function app(validators?: LazyValidators): FastifyInstance {
  const server = Fastify({ ...(validators === undefined ? {} : lazyValidatorOptions(validators)), ajv: AJV, logger: false });
  server.post('/items/:id', {
    schema: { body: BODY, params: { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } } }, querystring: { type: 'object', additionalProperties: false, properties: { dry: { type: 'string', enum: ['yes', 'no'] } } } },
  }, async (req) => ({ body: req.body, params: req.params, query: req.query }));
  return server;
}

test('each request is accepted or refused exactly as by the validators Fastify compiles at start', async (t) => {
  const eager = app();
  const lazy = app(createLazyValidators());
  t.after(() => Promise.all([eager.close(), lazy.close()]));
  const requests = [
    { url: '/items/abc', body: { name: 'x', count: 2, when: '2026-12-07T10:00:00Z' } },
    { url: '/items/abc?dry=yes', body: { name: 'x' } },
    { url: '/items/abc', body: { count: 2 } },
    { url: '/items/abc', body: { name: '' } },
    { url: '/items/abc', body: { name: 'x', count: -1 } },
    { url: '/items/abc', body: { name: 'x', count: '2' } },
    { url: '/items/abc', body: { name: 'x', extra: true } },
    { url: '/items/abc', body: { name: 'x', when: 'yesterday' } },
    { url: '/items/ABC', body: { name: 'x' } },
    { url: '/items/abc?dry=maybe', body: { name: 'x' } },
    { url: '/items/abc?other=1', body: { name: 'x' } },
  ];
  let refused = 0;
  for (const r of requests) {
    const [a, b] = await Promise.all([eager, lazy].map((s) => s.inject({ method: 'POST', url: r.url, payload: r.body })));
    assert.equal(b!.statusCode, a!.statusCode, `${r.url} ${JSON.stringify(r.body)}`);
    assert.deepEqual(b!.json(), a!.json(), `${r.url} ${JSON.stringify(r.body)}`);
    if (a!.statusCode === 400) refused += 1;
  }
  assert.equal(refused, 9);
});

test('a schema that does not compile starts the server, and compileAll names its route', async (t) => {
  const validators = createLazyValidators();
  const server = Fastify({ ...lazyValidatorOptions(validators), ajv: AJV, logger: false });
  t.after(() => server.close());
  server.post('/fine', { schema: { body: BODY } }, async () => ({}));
  server.post('/broken', { schema: { body: { type: 'object', properties: { n: { type: 'nmber' } } } } }, async () => ({}));
  await server.ready();
  assert.throws(() => validators.compileAll(), (err: any) => err.code === 'KW_ERR_INTERNAL' && /POST \/broken \(body\): schema is invalid: data\/properties\/n\/type/.test(err.message));
});

test('a header schema is refused at start: the lazy validators would not lowercase its names', async (t) => {
  const server = Fastify({ ...lazyValidatorOptions(createLazyValidators()), ajv: AJV, logger: false });
  t.after(() => server.close());
  server.get('/h', { schema: { headers: { type: 'object', required: ['X-Token'], properties: { 'X-Token': { type: 'string' } } } } }, async () => ({}));
  await assert.rejects(async () => server.ready(), /GET \/h: a header schema is not supported/);
});
