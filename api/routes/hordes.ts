/** `/api/hordes`: the catalog, one horde with its graph, validation, its models' readiness, and starting a run. */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../../core/index.js';
import type { Engine, CatalogEntry } from '../../engine/index.js';
import { didYouMean, requireHorde } from '../../engine/index.js';
import { hordeDetail, hordeSummary } from '../horde-view.js';
import { hordeIdParams } from '../schemas.js';

/** Only hordes in the catalog, by id: the API never loads a folder named by the caller. */
export async function entryById(engine: Engine, id: string): Promise<CatalogEntry> {
  const { entries } = await engine.catalog();
  const entry = entries.find((e) => e.id === id);
  if (entry === undefined) throw new KowalskiError('KW_ERR_HORDE_NOT_FOUND', `no horde "${id}" (see GET /api/hordes)${didYouMean(id, entries.map((e) => e.id))}`);
  return entry;
}

export function hordeRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/hordes', async () => {
    const { entries } = await engine.catalog();
    return { hordes: entries.map((e) => hordeSummary(e, entries)) };
  });

  // `?origin=user` picks, of two hordes with one id, the one that lost it to a built-in: its page shows why it cannot run.
  app.get<{ Params: { id: string }; Querystring: { origin?: 'builtin' | 'user' | 'imported' } }>('/api/hordes/:id', {
    schema: { params: hordeIdParams, querystring: { type: 'object', additionalProperties: false, properties: { origin: { type: 'string', enum: ['builtin', 'user', 'imported'] } } } },
  }, async (req) => {
    const { entries } = await engine.catalog();
    const origin = req.query.origin;
    const entry = origin === undefined ? await entryById(engine, req.params.id) : entries.find((e) => e.id === req.params.id && e.origin === origin);
    if (entry === undefined) throw new KowalskiError('KW_ERR_HORDE_NOT_FOUND', `no ${origin ?? ''} horde "${req.params.id}" (see GET /api/hordes)`);
    return hordeDetail(entry, entries, (kind) => engine.kinds.get(kind)?.runsCommand === true);
  });

  // The Run form's warning: is a model configured for each model step, and does its provider answer (a few seconds at most)?
  app.get<{ Params: { id: string } }>('/api/hordes/:id/readiness', { schema: { params: hordeIdParams } }, async (req) => engine.readiness(requireHorde(await entryById(engine, req.params.id))));

  app.post<{ Params: { id: string } }>('/api/hordes/:id/validate', { schema: { params: hordeIdParams } }, async (req) => {
    const { valid, problems } = hordeSummary(await entryById(engine, req.params.id));
    return { valid, problems };
  });

  app.post<{ Params: { id: string }; Body: { input?: Record<string, string>; provenance?: 'api' | 'cli' } }>('/api/hordes/:id/runs', {
    schema: {
      params: hordeIdParams,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          input: { type: 'object', maxProperties: 100, additionalProperties: { type: 'string', maxLength: 100_000 } },
          // What started it, shown beside the run: the app (`api`) or the CLI talking to the server (`cli`).
          provenance: { type: 'string', enum: ['api', 'cli'] },
        },
      },
    },
  }, async (req, reply) => {
    const horde = requireHorde(await entryById(engine, req.params.id));
    const runId = await engine.startRun(horde, req.body?.input ?? {}, { provenance: req.body?.provenance ?? 'api' });
    return reply.code(201).send({ runId });
  });
}
