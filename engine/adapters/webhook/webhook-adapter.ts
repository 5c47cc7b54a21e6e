/**
 * The webhook adapter (`type = "webhook"`): messages arrive signed at
 * `POST /adapters/webhook/<name>` (api/routes/adapter-webhook.ts checks them and hands
 * them to the host). The answer is given in the request itself, or — with `callback_url` —
 * POSTed there, signed the same way, by `reply()` (a failure is tried again by the host).
 */
import { KowalskiError } from '../../../core/index.js';
import { intSetting, secretSetting, urlSetting } from '../settings.js';
import type { AdapterDefinition, AdapterHost, AdapterInstance, InboundRecord } from '../types.js';
import { signedHeaders } from './signature.js';

export interface WebhookSettings {
  /** `secret` (or `secret_env`): the HMAC key of every delivery and every callback. */
  secret: string;
  /** `callback_url`: where answers are POSTed (then a delivery is answered 202 at once); absent: the answer comes in the request's response. */
  callbackUrl?: string;
  /** `reply_timeout_secs` (default 120, 1–600): how long a request waits for its answer before it gets 202 with the record's id. */
  replyTimeoutSecs: number;
}

/** A callback must answer within this long, ms. */
const CALLBACK_TIMEOUT_MS = 15_000;

async function postAnswer(settings: WebhookSettings & { callbackUrl: string }, host: AdapterHost, record: InboundRecord, answer: string): Promise<void> {
  const body = Buffer.from(JSON.stringify({
    delivery: record.deliveryId, conversation: record.conversation, sessionId: record.sessionId, record: record.id, text: answer,
  }), 'utf8');
  const controller = new AbortController();
  const timer = host.setTimeout(() => controller.abort(), CALLBACK_TIMEOUT_MS);
  try {
    const res = await fetch(settings.callbackUrl, {
      method: 'POST', body, redirect: 'manual', signal: controller.signal,
      headers: { 'content-type': 'application/json', ...signedHeaders(settings.secret, record.deliveryId, body, host.now()) },
    });
    await res.body?.cancel();
    if (res.status < 200 || res.status > 299) throw new KowalskiError('KW_ERR_ADAPTER_REPLY', `the callback answered HTTP ${res.status}`);
  } catch (err) {
    if (err instanceof KowalskiError) throw err;
    const why = controller.signal.aborted ? `no answer within ${CALLBACK_TIMEOUT_MS / 1000} s` : ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message;
    throw new KowalskiError('KW_ERR_ADAPTER_REPLY', `the callback could not be reached: ${why}`, { cause: err });
  } finally {
    timer.cancel();
  }
}

export const webhookAdapter: AdapterDefinition<WebhookSettings> = {
  type: 'webhook',
  secretKeys: ['secret'],
  settings(raw, env, name) {
    const callbackUrl = urlSetting(raw, name, 'callback_url');
    return {
      secret: secretSetting(raw, env, name, 'secret', { required: true }),
      ...(callbackUrl === undefined ? {} : { callbackUrl }),
      replyTimeoutSecs: intSetting(raw, name, 'reply_timeout_secs', 120, 1, 600),
    };
  },
  async start(settings, host): Promise<AdapterInstance> {
    const { callbackUrl } = settings;
    return {
      ...(callbackUrl === undefined ? {} : { reply: (record: InboundRecord, answer: string) => postAnswer({ ...settings, callbackUrl }, host, record, answer) }),
      stop: async () => undefined,
    };
  },
};
