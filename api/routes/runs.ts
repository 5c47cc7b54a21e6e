/** `/api/runs`: the list, one run, its events, its files, and the operator's actions. */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { RUN_STATES } from '../../engine/index.js';
import type { Engine, RunState } from '../../engine/index.js';
import { intInRange, queryInt, reasonField, runIdParams, stepField } from '../schemas.js';

type RunParams = { Params: { id: string } };

/** Never text/html or SVG: a model-written file must not run script on the app's origin. */
const CONTENT_TYPES: Record<string, string> = {
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.tsv': 'text/tab-separated-values; charset=utf-8',
  '.diff': 'text/plain; charset=utf-8',
  '.patch': 'text/plain; charset=utf-8',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.parquet': 'application/octet-stream',
};

export function runRoutes(app: FastifyInstance, engine: Engine): void {
  app.get<{ Querystring: { status?: RunState; horde?: string; limit?: string; cursor?: string } }>('/api/runs', {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { type: 'string', enum: [...RUN_STATES] },
          horde: { type: 'string', minLength: 1, maxLength: 100 },
          limit: queryInt,
          cursor: runIdParams.properties.id,
        },
      },
    },
  }, async (req) => {
    const limit = intInRange('limit', req.query.limit, 1, 500, 50);
    const runs = engine.listRuns({ ...req.query, limit: limit + 1 });
    const page = runs.slice(0, limit);
    return { runs: page, nextCursor: runs.length > limit ? page[page.length - 1]!.id : null };
  });

  app.get<RunParams>('/api/runs/:id', { schema: { params: runIdParams } }, async (req) => engine.getRun(req.params.id));

  app.get<RunParams & { Querystring: { after?: string; limit?: string } }>('/api/runs/:id/events', {
    schema: {
      params: runIdParams,
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { after: queryInt, limit: queryInt },
      },
    },
  }, async (req) => {
    const row = engine.getRunRow(req.params.id); // 404 for an unknown run
    const events = engine.events(req.params.id, intInRange('after', req.query.after, 0, Number.MAX_SAFE_INTEGER, 0), intInRange('limit', req.query.limit, 1, 10_000, 1000));
    return { events, lastSeq: row.lastSeq };
  });

  app.get<RunParams & { Params: { '*': string } }>('/api/runs/:id/artifacts/*', { schema: { params: { ...runIdParams, properties: { ...runIdParams.properties, '*': { type: 'string', minLength: 1, maxLength: 1000 } } } } }, async (req, reply) => {
    const file = engine.artifactPath(req.params.id, req.params['*']);
    const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    return reply
      .header('content-type', type)
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('content-disposition', `${type.startsWith('text/') || type.startsWith('application/json') ? 'inline' : 'attachment'}; filename="${path.basename(file).replace(/[^\w.-]/g, '_')}"`)
      .send(fs.createReadStream(file));
  });

  app.post<RunParams & { Body: { step?: string; hash?: string } | undefined }>('/api/runs/:id/approve', {
    schema: { params: runIdParams, body: { type: ['object', 'null'], additionalProperties: false, properties: { step: stepField, hash: { type: 'string', minLength: 1, maxLength: 128 } } } },
  }, async (req) => engine.approve(req.params.id, {
    ...(req.body?.step === undefined ? {} : { step: req.body.step }), ...(req.body?.hash === undefined ? {} : { hash: req.body.hash }), by: 'operator (api)',
  }));

  app.post<RunParams & { Body: { step?: string; reason: string } }>('/api/runs/:id/deny', {
    schema: {
      params: runIdParams,
      body: { type: 'object', required: ['reason'], additionalProperties: false, properties: { step: stepField, reason: reasonField } },
    },
  }, async (req) => engine.deny(req.params.id, { reason: req.body.reason, ...(req.body.step === undefined ? {} : { step: req.body.step }), by: 'operator (api)' }));

  app.post<RunParams & { Body: { reason?: string } | undefined }>('/api/runs/:id/cancel', {
    schema: { params: runIdParams, body: { type: ['object', 'null'], additionalProperties: false, properties: { reason: reasonField } } },
  }, async (req) => {
    await engine.cancel(req.params.id, { ...(req.body?.reason === undefined ? {} : { reason: req.body.reason }), by: 'operator (api)' });
    return { state: engine.getRunRow(req.params.id).state };
  });

  app.post<RunParams>('/api/runs/:id/resume', { schema: { params: runIdParams } }, async (req) => ({ state: await engine.resume(req.params.id) }));
}
