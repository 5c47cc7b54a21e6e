/**
 * The Discord adapter (`type = "discord"`, an HTTP interactions endpoint): interactions
 * arrive at `POST /adapters/discord/interactions` (api/routes/adapter-discord.ts hands over
 * the headers and raw bytes). `receive` checks the Ed25519 signature before anything else
 * (any failure: 401), answers PING with PONG, and accepts a command (committed) and
 * answers "deferred" at once; the agent's answer then edits that deferred response
 * (`reply`, tried again by the host while the interaction's token lasts), or, when the
 * turn failed, says so (`replyFailed`) instead of leaving Discord's "thinking…".
 */
import type { KeyObject } from 'node:crypto';
import { KowalskiError } from '../../../core/index.js';
import type { HttpAdapterInstance, InboundAnswer, InboundRequest } from '../http-inbound.js';
import { adapterConfigError, stringSetting, urlSetting } from '../settings.js';
import type { AdapterDefinition, AdapterHost, AdapterInstance, InboundRecord } from '../types.js';
import { DISCORD_API_URL, discordApi } from './api.js';
import { readDiscordRequest } from './interactions.js';
import { discordPublicKey, verifyDiscord } from './signature.js';

export interface DiscordSettings {
  /** `public_key`: the application's public key (General Information), 64 hex digits. */
  publicKey: KeyObject;
  /** `application_id`: the application's id (General Information). */
  applicationId: string;
  /** `api_url` (default https://discord.com/api/v10): the API's base. */
  apiUrl: string;
}

export type DiscordInstance = AdapterInstance & HttpAdapterInstance;

/** Interaction response types (Discord's numbers). */
const PONG = 1;
const MESSAGE = 4;
const DEFERRED = 5;
const AUTOCOMPLETE_RESULT = 8;
/** A message only the user who asked sees. */
const EPHEMERAL = 64;

export const discordAdapter: AdapterDefinition<DiscordSettings> = {
  type: 'discord',
  secretKeys: [],
  settings(raw, _env, name) {
    const hex = stringSetting(raw, name, 'public_key', { required: true });
    const publicKey = discordPublicKey(hex);
    if (typeof publicKey === 'string') throw adapterConfigError(name, 'public_key', publicKey);
    const applicationId = stringSetting(raw, name, 'application_id', { required: true });
    if (!/^\d{1,25}$/.test(applicationId)) throw adapterConfigError(name, 'application_id', `must be the application's id (digits), not ${JSON.stringify(applicationId)}`);
    return { publicKey, applicationId, apiUrl: urlSetting(raw, name, 'api_url', DISCORD_API_URL)!.replace(/\/+$/, '') };
  },
  async start(settings, host): Promise<DiscordInstance> {
    const api = discordApi(settings.apiUrl, settings.applicationId, host);
    const edit = (record: InboundRecord, content: string): Promise<void> => {
      const { token } = record.replyTo;
      if (typeof token !== 'string') throw new KowalskiError('KW_ERR_INTERNAL', `Discord: inbound record ${record.id} keeps no interaction token`);
      return api.editOriginal(token, content);
    };
    return {
      receive: (request) => receive(settings, host, request),
      reply: edit,
      replyFailed: edit,
      stop: async () => undefined,
    };
  },
};

function receive(settings: DiscordSettings, host: AdapterHost, request: InboundRequest): InboundAnswer {
  const verdict = verifyDiscord({ headers: request.headers, rawBody: request.rawBody, publicKey: settings.publicKey, nowMs: host.now() });
  if (!verdict.ok) throw new KowalskiError(verdict.code, `Discord: ${verdict.message}`);
  const read = readDiscordRequest(request.rawBody);
  switch (read.kind) {
    case 'ping':
      return { status: 200, body: { type: PONG } };
    case 'command':
      host.accept(read.message);
      return { status: 200, body: { type: DEFERRED } };
    case 'no-text':
      return { status: 200, body: { type: MESSAGE, data: { content: `/${read.command} needs something to say: give it a message (or prompt) option.`, flags: EPHEMERAL } } };
    case 'autocomplete':
      return { status: 200, body: { type: AUTOCOMPLETE_RESULT, data: { choices: [] } } };
    case 'other':
      return { status: 200, body: { type: MESSAGE, data: { content: 'kowalski answers slash commands only.', flags: EPHEMERAL } } };
  }
}
