/** `/api/health`: liveness, version, and what the last start recovered. */
import type { FastifyInstance } from 'fastify';
import type { Health, HealthInfo } from '../../contract/health.js';
export type { Health, HealthInfo } from '../../contract/health.js';

export function healthRoutes(app: FastifyInstance, info: () => HealthInfo): void {
  app.get('/api/health', async (): Promise<Health> => ({ ok: true, ...info() }));
}
