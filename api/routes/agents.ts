/** `/api/agents`: the agent profiles, one profile's file, checking a text, saving and removing a user profile. */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { AGENT_NAME, AgentInvalidError, MAX_AGENT_NAME } from '../../engine/index.js';
import { errorBody } from '../http-errors.js';
import type { AgentList } from '../../contract/team.js';
export type { AgentList } from '../../contract/team.js';

const nameParams = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', maxLength: MAX_AGENT_NAME, pattern: AGENT_NAME.source } },
} as const;

/** A profile's text: the 256 KiB bound is the validator's (a problem with a code), this only keeps bodies sane. */
const textField = { type: 'string', maxLength: 1024 * 1024 } as const;

export function agentRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/agents', async (): Promise<AgentList> => {
    const { profiles, problems } = engine.team.catalog();
    return { agents: profiles, problems };
  });

  app.get<{ Params: { name: string } }>('/api/agents/:name', { schema: { params: nameParams } }, async (req) => engine.team.source(req.params.name));

  // Any name is taken here: a name that cannot name a profile is one of the problems the editor shows.
  app.post<{ Body: { name: string; text: string } }>('/api/agents/validate', {
    schema: {
      body: {
        type: 'object', required: ['name', 'text'], additionalProperties: false,
        properties: { name: { type: 'string', maxLength: 200 }, text: textField },
      },
    },
  }, async (req) => ({ problems: engine.team.validate(req.body.name, req.body.text) }));

  app.put<{ Params: { name: string }; Body: { text: string } }>('/api/agents/:name', {
    schema: {
      params: nameParams,
      body: { type: 'object', required: ['text'], additionalProperties: false, properties: { text: textField } },
    },
  }, async (req, reply) => {
    try {
      return engine.team.save(req.params.name, req.body.text);
    } catch (err) {
      if (!(err instanceof AgentInvalidError)) throw err;
      return reply.code(422).send({ ...errorBody(err.code, err.message), problems: err.problems });
    }
  });

  app.delete<{ Params: { name: string } }>('/api/agents/:name', { schema: { params: nameParams } }, async (req, reply) => {
    engine.team.remove(req.params.name);
    return reply.code(204).send();
  });
}
