/** `/api/health`: liveness, version, whether a token is needed, and what the last start recovered. */
import type { FastifyInstance } from 'fastify';
import type { RecoverySummary } from '../../engine/index.js';

export interface HealthInfo {
  version: string;
  auth: 'none' | 'token';
  startedAt: number;
  recovery: RecoverySummary | null;
}

/** What `GET /api/health` answers. */
export type Health = { ok: true } & HealthInfo;

export function healthRoutes(app: FastifyInstance, info: () => HealthInfo): void {
  app.get('/api/health', async (): Promise<Health> => ({ ok: true, ...info() }));
}
