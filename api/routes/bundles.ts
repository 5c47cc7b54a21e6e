/**
 * `/api/bundles` and `/api/hordes/:id/bundle`: a horde as a `.kwf.zip`, and importing one —
 * upload (checked and staged in a child process, nothing installed), then install or drop. Registered as an
 * encapsulated plugin: the `application/zip` body parser and its 20 MiB limit apply to
 * these routes only; every other route keeps JSON bodies of at most 1 MiB.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../../core/index.js';
import { BundleStaging, DEFAULT_BUNDLE_LIMITS, INSTALL_ID, REVIEW_ID_PATTERN, exportBundle, reviewProcess } from '../../bundles/index.js';
import { requireHorde } from '../../engine/index.js';
import type { Catalog, Engine } from '../../engine/index.js';
import { hordeIdParams } from '../schemas.js';

const reviewParams = { type: 'object', required: ['reviewId'], properties: { reviewId: { type: 'string', pattern: REVIEW_ID_PATTERN } } } as const;

export async function bundleRoutes(app: FastifyInstance, options: { engine: Engine }): Promise<void> {
  const { engine } = options;
  const staging = new BundleStaging();
  // Uploads are checked in a child process: a wide bundle never holds up the other routes.
  const reviewer = reviewProcess(engine.ownCode);
  const knownKinds = (): ReadonlySet<string> => new Set(engine.kinds.keys());
  // Made here, not in a request's handler: a staged review keeps it for 10 minutes, and a closure
  // made in the handler would keep the handler's scope with it — the upload's 20 MiB body included.
  const catalog = (): Promise<Catalog> => engine.catalog();
  app.addHook('onClose', async () => {
    await reviewer.close();
    await staging.close();
  });
  app.addContentTypeParser('application/zip', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.get<{ Params: { id: string } }>('/api/hordes/:id/bundle', { schema: { params: hordeIdParams } }, async (req, reply) => {
    const { id } = req.params;
    const entry = (await engine.catalog()).entries.find((e) => e.id === id);
    if (entry === undefined) throw new KowalskiError('KW_ERR_HORDE_NOT_FOUND', `no horde "${id}" (see GET /api/hordes)`);
    const horde = requireHorde(entry);
    const bytes = await exportBundle(horde.dir, horde.id, { knownKinds: knownKinds() });
    return reply
      .header('content-type', 'application/zip')
      .header('content-disposition', `attachment; filename="${horde.id}.kwf.zip"`)
      .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  });

  app.post('/api/bundles', { bodyLimit: DEFAULT_BUNDLE_LIMITS.maxBundleBytes }, async (req, reply) => {
    if (!Buffer.isBuffer(req.body)) throw new KowalskiError('KW_ERR_UNSUPPORTED_MEDIA', 'send the bundle itself as the body, with Content-Type: application/zip');
    const bytes = req.body;
    // Every websocket client hears how far the check got (`work` frames of op `bundle-import`).
    const staged = await engine.work('bundle-import', (onProgress) => reviewer.review(bytes, { dataDir: engine.paths.dataDir, knownKinds: knownKinds(), catalog }, onProgress));
    const { reviewId, expiresAt } = await staging.add(staged);
    return reply.code(201).send({ reviewId, expiresAt, ...staged.report });
  });

  app.post<{ Params: { reviewId: string }; Body: { id?: string; replace?: boolean } | null | undefined }>('/api/bundles/:reviewId/install', {
    schema: {
      params: reviewParams,
      body: { type: ['object', 'null'], additionalProperties: false, properties: { id: { type: 'string', pattern: INSTALL_ID.source }, replace: { type: 'boolean' } } },
    },
  }, async (req, reply) => {
    const body = req.body ?? {};
    const installed = await staging.install(req.params.reviewId, { ...(body.id === undefined ? {} : { id: body.id }), ...(body.replace === undefined ? {} : { replace: body.replace }) });
    // Its triggers are listed (switched off) at once, without waiting for the hot reload to notice the folder.
    await engine.triggers.refresh();
    return reply.code(201).send({ hordeId: installed.hordeId });
  });

  app.delete<{ Params: { reviewId: string } }>('/api/bundles/:reviewId', { schema: { params: reviewParams } }, async (req, reply) => {
    await staging.drop(req.params.reviewId);
    return reply.code(204).send();
  });
}
