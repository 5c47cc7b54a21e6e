/**
 * The Discord API call the adapter makes: editing the deferred response of an interaction
 * with the agent's answer, `PATCH {api_url}/webhooks/{application_id}/{token}/messages/@original`
 * (default api_url https://discord.com/api/v10). No bot token is needed: the interaction's
 * token authorises it, for 15 minutes. Mentions in the answer ping nobody.
 */
import { KowalskiError } from '../../../core/index.js';
import { callJson } from '../json-api.js';
import type { AdapterHost } from '../types.js';

export const DISCORD_API_URL = 'https://discord.com/api/v10';
/** Discord refuses a message's content over 2,000 characters; a longer answer is cut with a note. */
export const DISCORD_MAX_CONTENT = 2000;

export interface DiscordApi {
  editOriginal(token: string, content: string): Promise<void>;
}

export function discordApi(apiUrl: string, applicationId: string, timers: Pick<AdapterHost, 'setTimeout'>): DiscordApi {
  return {
    async editOriginal(token, content) {
      const what = 'Discord edit of the deferred response';
      const answer = await callJson({
        method: 'PATCH',
        url: `${apiUrl}/webhooks/${encodeURIComponent(applicationId)}/${encodeURIComponent(token)}/messages/@original`,
        headers: {},
        body: { content: discordContent(content), allowed_mentions: { parse: [] } },
        what, code: 'KW_ERR_DISCORD_API',
      }, timers);
      if (answer.status >= 200 && answer.status <= 299) return;
      const message = (answer.json as { message?: unknown } | undefined)?.message;
      const detail = typeof message === 'string' ? `: ${message.slice(0, 200)}` : '';
      const hint = answer.status === 404 || answer.status === 401 ? ' (the interaction token expires 15 minutes after the command)' : '';
      throw new KowalskiError('KW_ERR_DISCORD_API', `${what} answered HTTP ${answer.status}${detail}${hint}`);
    },
  };
}

export function discordContent(answer: string): string {
  if (answer.length <= DISCORD_MAX_CONTENT) return answer === '' ? '(no answer)' : answer;
  const note = '\n… (cut: the answer is longer than Discord shows)';
  return answer.slice(0, DISCORD_MAX_CONTENT - note.length) + note;
}
