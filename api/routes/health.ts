/** `/api/health`: liveness, version, and what the last start recovered. */
import type { FastifyInstance } from 'fastify';
import type { RecoverySummary } from '../../engine/index.js';

export interface HealthInfo {
  version: string;
  /** Always `token` (kept for clients that read it: every route needs the token). */
  auth: 'token';
  startedAt: number;
  recovery: RecoverySummary | null;
}

/** What `GET /api/health` answers. */
export type Health = { ok: true } & HealthInfo;

export function healthRoutes(app: FastifyInstance, info: () => HealthInfo): void {
  app.get('/api/health', async (): Promise<Health> => ({ ok: true, ...info() }));
}
