/**
 * The models a configured server has: Ollama lists its own at `GET /api/tags`, an
 * OpenAI-compatible server (LM Studio, vLLM, llama.cpp, OpenAI) at `GET /models`. The hosted
 * providers (Anthropic, Gemini) are not asked: that would send their key somewhere for a
 * list the operator types from their documentation. One short request, bounded by `timeoutMs`.
 */
import http from 'node:http';
import https from 'node:https';
import { messageOf } from '../../core/index.js';
import type { ModelList, ModelListProvider } from '../../contract/setup.js';
import type { ProviderSettings } from '../types.js';

/**
 * `GET url` within the time: the JSON body, or why not. Over node:http with no agent, so
 * the connection closes with the answer: a kept-alive socket would hold a one-shot CLI
 * command open for as long as the server keeps it (fetch keeps it).
 */
function getJson(url: string, headers: Record<string, string>, timeoutMs: number): Promise<{ json: unknown } | { why: string }> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    let req: http.ClientRequest;
    try {
      req = get(url, { headers: { accept: 'application/json', ...headers }, agent: false, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => resolve({ why: `could not be read (${err.message})` }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return resolve({ why: `answered ${status}${status === 401 || status === 403 ? ' (the key was refused)' : ''}` });
          try {
            resolve({ json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
          } catch {
            resolve({ why: 'answered with something that is not JSON' });
          }
        });
      });
    } catch (err) {
      resolve({ why: `could not be asked (${messageOf(err)})` });
      return;
    }
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => {
      resolve({ why: err.code === 'TIMEOUT' ? `did not answer within ${timeoutMs} ms` : `could not be reached (${err.code ?? err.message})` });
    });
  });
}

function namesIn(json: unknown, list: 'models' | 'data', key: 'name' | 'id'): string[] {
  const items = (json as Record<string, unknown> | null)?.[list];
  if (!Array.isArray(items)) return [];
  return items.flatMap((m) => {
    const v = (m as Record<string, unknown> | null)?.[key];
    return typeof v === 'string' ? [v] : [];
  });
}

/** A server's models, or why it could not be asked (`problem`, naming the server and the config.toml key); never throws. */
export type ServerModels = { server: string; models: string[] } | { server: string; why: string };

export async function ollamaModels(host: string, timeoutMs: number): Promise<ServerModels> {
  const got = await getJson(`${host}/api/tags`, {}, timeoutMs);
  return 'why' in got ? { server: host, why: got.why } : { server: host, models: namesIn(got.json, 'models', 'name') };
}

export async function openaiModels(server: NonNullable<ProviderSettings['openai']>, timeoutMs: number): Promise<ServerModels> {
  const headers: Record<string, string> = server.apiKey === undefined ? {} : { authorization: `Bearer ${server.apiKey}` };
  const got = await getJson(`${server.baseUrl}/models`, headers, timeoutMs);
  return 'why' in got ? { server: server.baseUrl, why: got.why } : { server: server.baseUrl, models: namesIn(got.json, 'data', 'id') };
}

/** Setup's list for `provider` with the saved settings: sorted names, or `problem` saying why there are none to offer. */
export async function listModels(provider: ModelListProvider, settings: ProviderSettings, timeoutMs: number): Promise<ModelList> {
  switch (provider) {
    case 'ollama': {
      const got = await ollamaModels(settings.ollama.host, timeoutMs);
      if ('why' in got) return { provider, server: got.server, models: [], problem: `Ollama at ${got.server} ${got.why}: is \`ollama serve\` running? (host: [providers.ollama] host in config.toml, or OLLAMA_HOST)` };
      return { provider, server: got.server, models: [...got.models].sort(), problem: got.models.length === 0 ? `Ollama at ${got.server} has no models yet: run \`ollama pull <model>\`` : null };
    }
    case 'openai': {
      if (settings.openai === undefined) {
        return { provider, server: null, models: [], problem: 'no OpenAI-compatible server is set: fill in its base URL and save, then its models are offered' };
      }
      const got = await openaiModels(settings.openai, timeoutMs);
      if ('why' in got) return { provider, server: got.server, models: [], problem: `the OpenAI-compatible server at ${got.server} ${got.why} ([providers.openai] base_url in config.toml)` };
      return { provider, server: got.server, models: [...got.models].sort(), problem: got.models.length === 0 ? `the OpenAI-compatible server at ${got.server} lists no models: load one there` : null };
    }
    default: {
      const never: never = provider;
      throw new Error(`unknown provider ${String(never)}`);
    }
  }
}
