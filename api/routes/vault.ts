/**
 * The vault over HTTP: `/api/vault/notes` and `/api/vault/note` (the notes), `/api/writes`
 * (the audit of every write kowalski made to them, one write with its diff) and
 * `POST /api/writes/:id/revert` — 409 with the diff when the note changed since.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../../core/index.js';
import type { Engine } from '../../engine/index.js';
import { MAX_VAULT_PATH, MAX_WRITES_LISTED, VaultConflictError } from '../../engine/index.js';
import { errorBody } from '../http-errors.js';
import { intInRange, queryInt } from '../schemas.js';
import type { NoteView } from '../../contract/vault.js';
export type { NoteView } from '../../contract/vault.js';

/** The writes of one note `GET /api/vault/note` shows. */
const NOTE_WRITES = 50;

const pathField = { type: 'string', minLength: 1, maxLength: MAX_VAULT_PATH } as const;
const idParams = { type: 'object', required: ['id'], additionalProperties: false, properties: { id: queryInt } } as const;

/** The note, or a missing one said to a person (the engine's words are for an agent, which has list_notes). */
function readForPeople(engine: Engine, path: string): ReturnType<Engine['vault']['read']> {
  try {
    return engine.vault.read(path);
  } catch (err) {
    if (!(err instanceof KowalskiError) || err.code !== 'KW_ERR_VAULT_NOT_FOUND') throw err;
    throw new KowalskiError('KW_ERR_VAULT_NOT_FOUND', `the vault holds no note ${JSON.stringify(path)}: it was deleted or moved, or never written (GET /api/writes?path= lists its writes)`, { cause: err });
  }
}

export function vaultRoutes(app: FastifyInstance, engine: Engine): void {
  app.get<{ Querystring: { under?: string } }>('/api/vault/notes', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { under: { type: 'string', maxLength: MAX_VAULT_PATH } } } },
  }, async (req) => ({ notes: engine.vault.list(req.query.under ?? '') }));

  app.get<{ Querystring: { path: string } }>('/api/vault/note', {
    schema: { querystring: { type: 'object', required: ['path'], additionalProperties: false, properties: { path: pathField } } },
  }, async (req): Promise<NoteView> => {
    const { note, content } = readForPeople(engine, req.query.path);
    return { note, content, writes: engine.vault.writes({ path: note.path, limit: NOTE_WRITES }) };
  });

  app.get<{ Querystring: { path?: string; session?: string; limit?: string; before?: string } }>('/api/writes', {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { path: pathField, session: { type: 'string', pattern: '^c[0-9a-z]{1,40}$' }, limit: queryInt, before: queryInt },
      },
    },
  }, async (req) => ({
    writes: engine.vault.writes({
      limit: intInRange('limit', req.query.limit, 1, MAX_WRITES_LISTED, 100),
      ...(req.query.path === undefined ? {} : { path: req.query.path }),
      ...(req.query.session === undefined ? {} : { sessionId: req.query.session }),
      ...(req.query.before === undefined ? {} : { before: intInRange('before', req.query.before, 1, Number.MAX_SAFE_INTEGER, 1) }),
    }),
  }));

  app.get<{ Params: { id: string } }>('/api/writes/:id', { schema: { params: idParams } }, async (req) => engine.vault.write(Number(req.params.id)));

  app.post<{ Params: { id: string }; Body: { by?: 'api' | 'app' | 'cli' } | undefined }>('/api/writes/:id/revert', {
    schema: { params: idParams, body: { type: ['object', 'null'], additionalProperties: false, properties: { by: { type: 'string', enum: ['api', 'app', 'cli'] } } } },
  }, async (req, reply) => {
    try {
      return { write: await engine.vault.revert(Number(req.params.id), req.body?.by ?? 'api') };
    } catch (err) {
      if (!(err instanceof VaultConflictError)) throw err;
      return reply.code(409).send({ error: { ...errorBody(err.code, err.message).error, diff: err.diff } });
    }
  });
}
