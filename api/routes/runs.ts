/** `/api/runs`: the list, one run, its events, its files, and the operator's actions. */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { RUN_STATES, requireHorde } from '../../engine/index.js';
import type { Engine, RunState } from '../../engine/index.js';
import { hashField, hordeIdParams, intInRange, queryInt, reasonField, runIdParams, stepField } from '../schemas.js';
import { entryById } from './hordes.js';

type RunParams = { Params: { id: string } };

const wholeLimit = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
/** A raise: at least one limit of `[budget]`, nothing else. */
const budgetBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    model_calls: wholeLimit, tokens: wholeLimit, tool_calls: wholeLimit, wall_secs: wholeLimit,
    cost_usd: { type: 'number', exclusiveMinimum: 0, maximum: 1e9 },
  },
};

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
    schema: { params: runIdParams, body: { type: ['object', 'null'], additionalProperties: false, properties: { step: stepField, hash: hashField } } },
  }, async (req) => engine.approve(req.params.id, {
    ...(req.body?.step === undefined ? {} : { step: req.body.step }),
    ...(req.body?.hash === undefined ? {} : { hash: req.body.hash }),
    by: 'operator (api)',
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

  /** New limits for the run's budget (keys as in `[budget]`); a run parked for its budget goes on. */
  app.post<RunParams & { Body: Record<string, number> }>('/api/runs/:id/budget', {
    schema: { params: runIdParams, body: budgetBody },
  }, async (req) => {
    const budget = await engine.raiseBudget(req.params.id, req.body, { by: 'operator (api)' });
    return { state: engine.getRunRow(req.params.id).state, budget };
  });

  // A new run from a step of this one: the earlier steps take this run's results (docs/rerun.md). `horde`: a catalog id (an edited copy); default the run's own horde.
  app.post<RunParams & { Body: { from: string; replayModels?: boolean; horde?: string } }>('/api/runs/:id/rerun', {
    schema: {
      params: runIdParams,
      body: {
        type: 'object', required: ['from'], additionalProperties: false,
        properties: { from: stepField, replayModels: { type: 'boolean' }, horde: hordeIdParams.properties.id },
      },
    },
  }, async (req, reply) => {
    const horde = req.body.horde === undefined ? undefined : requireHorde(await entryById(engine, req.body.horde));
    const runId = await engine.rerun(req.params.id, {
      from: req.body.from, replayModels: req.body.replayModels === true, ...(horde === undefined ? {} : { horde }),
    });
    return reply.code(201).send({ runId });
  });

  app.post<RunParams>('/api/runs/:id/resume', { schema: { params: runIdParams } }, async (req) => ({ state: await engine.resume(req.params.id) }));
}
