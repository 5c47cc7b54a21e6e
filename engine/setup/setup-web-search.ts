/**
 * Setup's web search section: `[tools.web_search]` read for the app (a key's variable
 * name and whether it is set, never a key) and a patch turned into the key edits that
 * make it, each refusal KW_ERR_BAD_REQUEST naming `webSearch.<field>`.
 */
import { STAAN_MARKET } from '../../agents/index.js';
import { ENV_NAME } from '../../core/index.js';
import { bad, httpUrl, keyHint, str, sub } from './setup-fields.js';
import type { Table } from './setup-fields.js';
import type { SetupPatch, WebSearchSetup } from '../../contract/setup.js';

/** One key of `[tools.web_search]` to set, or (null) remove. */
export interface WebSearchEdit {
  key: 'provider' | 'url' | 'api_key_env' | 'api_key' | 'market';
  value: string | null;
}

const isSet = (env: NodeJS.ProcessEnv, name: string | null): boolean => name !== null && (env[name] ?? '') !== '';

/** The keyed providers: their name for messages and the variable read when no `api_key_env` is named. */
const KEYED = { brave: { name: 'Brave', env: 'BRAVE_API_KEY' }, staan: { name: 'Staan', env: 'STAAN_API_KEY' } } as const;

export function webSearchOf(raw: Table, env: NodeJS.ProcessEnv): WebSearchSetup {
  const t = sub(sub(raw, 'tools'), 'web_search');
  const provider = t.provider === 'searxng' || t.provider === 'brave' || t.provider === 'staan' ? t.provider : null;
  const apiKeyEnv = str(t.api_key_env);
  const key = str(t.api_key);
  return {
    provider, url: str(t.url), apiKeyEnv, apiKeyEnvSet: isSet(env, apiKeyEnv),
    envKeySet: { brave: isSet(env, 'BRAVE_API_KEY'), staan: isSet(env, 'STAAN_API_KEY') }, market: str(t.market),
    apiKeyHint: key === null ? null : keyHint(key),
  };
}

/** The edits a `webSearch` patch makes to `[tools.web_search]` as `raw` holds it, checked against `env` (the server's). */
export function webSearchEdits(raw: Table, patch: NonNullable<SetupPatch['webSearch']>, env: NodeJS.ProcessEnv): WebSearchEdit[] {
  const now = sub(sub(raw, 'tools'), 'web_search');
  if (patch.provider === null) return (['provider', 'url', 'api_key_env', 'api_key', 'market'] as const).map((key) => ({ key, value: null }));
  const url = patch.url === undefined ? str(now.url) : patch.url === null ? null : httpUrl('webSearch.url', patch.url);
  const edits: WebSearchEdit[] = [{ key: 'provider', value: patch.provider }];
  if (patch.url !== undefined) edits.push({ key: 'url', value: url });
  if (patch.provider === 'searxng') {
    if (url === null) throw bad('webSearch.url', 'SearXNG needs the address of its instance, e.g. "http://127.0.0.1:8888"');
    if (patch.apiKeyEnv !== undefined && patch.apiKeyEnv !== null) throw bad('webSearch.apiKeyEnv', 'SearXNG takes no key: leave it empty');
    if (patch.market !== undefined && patch.market !== null) throw bad('webSearch.market', 'only Staan takes a market: leave it empty');
    edits.push({ key: 'api_key_env', value: null }, { key: 'market', value: null });
    return edits;
  }
  if (patch.provider === 'brave') {
    if (patch.market !== undefined && patch.market !== null) throw bad('webSearch.market', 'only Staan takes a market: leave it empty');
    edits.push({ key: 'market', value: null });
  } else if (patch.market !== undefined) {
    if (patch.market !== null && !STAAN_MARKET.test(patch.market)) throw bad('webSearch.market', `must be a language and a country in lower case, e.g. "en-us" or "fr-fr", not ${JSON.stringify(patch.market)}`);
    edits.push({ key: 'market', value: patch.market });
  }
  const { name: who, env: fallback } = KEYED[patch.provider];
  const name = patch.apiKeyEnv === undefined ? str(now.api_key_env) : patch.apiKeyEnv;
  if (name !== null) {
    if (!ENV_NAME.test(name)) throw bad('webSearch.apiKeyEnv', `must be an environment variable's name (letters, digits and _, not starting with a digit), not ${JSON.stringify(name)}; Setup never takes the key itself`);
    if (!isSet(env, name)) throw bad('webSearch.apiKeyEnv', `the environment variable ${name} is not set in kowalski's environment: set it to ${who}'s key where kowalski starts, start it again, then save`);
  } else if (!isSet(env, fallback) && str(now.api_key) === null) {
    throw bad('webSearch.apiKeyEnv', `${who} needs a key: name the environment variable that holds it (or set ${fallback} where kowalski starts)`);
  }
  if (patch.apiKeyEnv !== undefined) edits.push({ key: 'api_key_env', value: name });
  return edits;
}
