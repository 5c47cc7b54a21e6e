/**
 * The two Slack Web API methods the adapter calls, with the bot token, at `api_url`
 * (default https://slack.com/api): `auth.test` (our bot's user id, so its own messages
 * are not answered; it also proves the token at start) and `chat.postMessage` (the answer,
 * in the message's thread). Slack answers HTTP 200 with `{ok: false, error}` when it
 * refuses: that is an error too, and the host tries the reply again (bounded).
 */
import { KowalskiError } from '../../../core/index.js';
import type { ErrorCode } from '../../../core/index.js';
import { callJson } from '../json-api.js';
import type { AdapterHost } from '../types.js';

export const SLACK_API_URL = 'https://slack.com/api';
/** Slack cuts a message's text at 40,000 characters; a longer answer is shortened with a note. */
export const SLACK_MAX_TEXT = 40_000;

export interface SlackWebApi {
  /** Our bot's user id (`auth.test`). */
  botUserId(): Promise<string>;
  postMessage(channel: string, threadTs: string, text: string): Promise<void>;
  /**
   * A new message in `channel` (a `send` step), its `ts` back. Slack's refusal (`ok: false`,
   * an HTTP 4xx or 429) is KW_ERR_SEND_REFUSED: nothing was posted; no answer, or a 5xx, is
   * KW_ERR_SLACK_API: whether it was posted is not known.
   */
  post(channel: string, text: string): Promise<string>;
}

export function slackWebApi(apiUrl: string, botToken: string, timers: Pick<AdapterHost, 'setTimeout'>): SlackWebApi {
  const call = async (method: string, body: Record<string, unknown>, refused: ErrorCode = 'KW_ERR_SLACK_API'): Promise<Record<string, unknown>> => {
    const what = `Slack ${method}`;
    const answer = await callJson({
      method: 'POST', url: `${apiUrl}/${method}`, headers: { authorization: `Bearer ${botToken}` }, body, what, code: 'KW_ERR_SLACK_API',
    }, timers);
    const json = answer.json as Record<string, unknown> | undefined;
    if (answer.status === 429) throw new KowalskiError(refused, `${what} is rate limited${answer.retryAfterSecs === undefined ? '' : ` (retry after ${answer.retryAfterSecs} s)`}`);
    if (answer.status < 200 || answer.status > 299) throw new KowalskiError(answer.status < 500 ? refused : 'KW_ERR_SLACK_API', `${what} answered HTTP ${answer.status}`);
    if (typeof json !== 'object' || json === null || json.ok !== true) {
      const error = typeof json?.error === 'string' ? json.error.slice(0, 100) : 'no error named';
      throw new KowalskiError(refused, `${what} refused: ${error}${HINTS[error] ?? ''}`);
    }
    return json;
  };
  return {
    async botUserId() {
      const json = await call('auth.test', {});
      if (typeof json.user_id !== 'string' || json.user_id === '') throw new KowalskiError('KW_ERR_SLACK_API', 'Slack auth.test answered without a user_id');
      return json.user_id;
    },
    async postMessage(channel, threadTs, text) {
      await call('chat.postMessage', { channel, thread_ts: threadTs, text: slackText(text), unfurl_links: false });
    },
    async post(channel, text) {
      const json = await call('chat.postMessage', { channel, text: slackText(text), unfurl_links: false }, 'KW_ERR_SEND_REFUSED');
      return typeof json.ts === 'string' ? json.ts : '';
    },
  };
}

/**
 * The answer as Slack text: `&`, `<` and `>` escaped as Slack asks, so an answer cannot
 * ping `<!channel>` or forge a link, and cut to what Slack keeps.
 */
export function slackText(answer: string): string {
  const escaped = answer.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (escaped.length <= SLACK_MAX_TEXT) return escaped;
  const note = '\n… (the answer was cut: it is longer than Slack shows)';
  // Never end inside an entity (`&am`).
  return escaped.slice(0, SLACK_MAX_TEXT - note.length).replace(/&[a-z]{0,3}$/, '') + note;
}

const HINTS: Record<string, string> = {
  invalid_auth: ' (the bot token is wrong: bot_token or bot_token_env)',
  not_authed: ' (no bot token was sent)',
  not_in_channel: ' (invite the app to the channel)',
  channel_not_found: ' (the app cannot see that channel)',
  missing_scope: ' (add chat:write to the app\'s bot token scopes and reinstall it)',
};
