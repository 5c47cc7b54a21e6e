/** `/api/nodes`: the nodes sharing the run store (this one marked), their heartbeats, the runs they hold, and the latest hand-overs of runs between them. */
import type { FastifyInstance } from 'fastify';
import type { Engine, NodesView } from '../../engine/index.js';

export function nodeRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/nodes', async (): Promise<NodesView> => engine.nodes());
}
