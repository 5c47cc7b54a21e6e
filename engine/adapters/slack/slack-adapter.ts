/**
 * The Slack adapter (`type = "slack"`, Events API): requests arrive at
 * `POST /adapters/slack/events` (api/routes/adapter-slack.ts hands over the headers and raw
 * bytes). `receive` checks the signature before anything else, answers the URL challenge,
 * and accepts a message (committed before the request is answered, so Slack gets its 200
 * at once and a restart still answers); the agent's answer goes back in the message's
 * thread through `chat.postMessage` when the turn ends (`reply`, tried again by the host).
 * A horde's `send` step posts a new message to a channel with the same token (`send`).
 */
import { KowalskiError } from '../../../core/index.js';
import type { HttpAdapterInstance, InboundAnswer, InboundRequest } from '../http-inbound.js';
import { secretSetting, stringSetting, urlSetting } from '../settings.js';
import type { AdapterDefinition, AdapterHost, AdapterInstance, InboundRecord } from '../types.js';
import { readSlackRequest } from './events.js';
import { verifySlack } from './signature.js';
import { SLACK_API_URL, slackWebApi } from './web-api.js';

export interface SlackSettings {
  /** `signing_secret` (or `signing_secret_env`): the app's signing secret (Basic Information → App Credentials). */
  signingSecret: string;
  /** `bot_token` (or `bot_token_env`): the bot user OAuth token, `xoxb-…` (needs chat:write). */
  botToken: string;
  /** `api_url` (default https://slack.com/api): the Web API's base. */
  apiUrl: string;
  /** `bot_user_id`: our bot's user id; when absent, asked of `auth.test` at start (which also proves the token). */
  botUserId?: string;
}

export type SlackInstance = AdapterInstance & HttpAdapterInstance;

export const slackAdapter: AdapterDefinition<SlackSettings> = {
  type: 'slack',
  secretKeys: ['signing_secret', 'bot_token'],
  settings(raw, env, name) {
    const botUserId = stringSetting(raw, name, 'bot_user_id');
    return {
      signingSecret: secretSetting(raw, env, name, 'signing_secret', { required: true }),
      botToken: secretSetting(raw, env, name, 'bot_token', { required: true }),
      apiUrl: urlSetting(raw, name, 'api_url', SLACK_API_URL)!.replace(/\/+$/, ''),
      ...(botUserId === undefined ? {} : { botUserId }),
    };
  },
  async send(settings, message, host) {
    const ts = await slackWebApi(settings.apiUrl, settings.botToken, host).post(message.to, message.text);
    return ts === '' ? {} : { messageId: ts };
  },
  async start(settings, host): Promise<SlackInstance> {
    const api = slackWebApi(settings.apiUrl, settings.botToken, host);
    const botUserId = settings.botUserId ?? (await api.botUserId());
    return {
      receive: (request) => receive(settings, botUserId, host, request),
      async reply(record, answer) {
        const { channel, thread_ts: threadTs } = record.replyTo;
        if (typeof channel !== 'string' || typeof threadTs !== 'string') throw replyToError(record);
        await api.postMessage(channel, threadTs, answer);
      },
      stop: async () => undefined,
    };
  },
};

function receive(settings: SlackSettings, botUserId: string, host: AdapterHost, request: InboundRequest): InboundAnswer {
  const verdict = verifySlack({ headers: request.headers, rawBody: request.rawBody, signingSecret: settings.signingSecret, nowMs: host.now() });
  if (!verdict.ok) throw new KowalskiError(verdict.code, `Slack: ${verdict.message}`);
  const read = readSlackRequest(request.rawBody, botUserId);
  switch (read.kind) {
    case 'challenge':
      return { status: 200, body: { challenge: read.challenge } };
    case 'ignored':
      return { status: 200, body: { ok: true, ignored: read.reason } };
    case 'message': {
      const accepted = host.accept(read.message);
      return { status: 200, body: { ok: true, record: accepted.record.id, duplicate: accepted.status === 'duplicate' } };
    }
  }
}

function replyToError(record: InboundRecord): KowalskiError {
  return new KowalskiError('KW_ERR_INTERNAL', `Slack: inbound record ${record.id} keeps no channel and thread to answer in`);
}
