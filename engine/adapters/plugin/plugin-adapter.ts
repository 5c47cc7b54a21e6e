/**
 * The plugin adapter (`type = "plugin"`): an adapter a plugin declares in its manifest
 * (`[[adapters]]`), run in the plugin's process under its grants. Requests arrive at
 * `POST /adapters/plugin/<name>` (api/routes/adapter-plugin.ts hands over the headers and
 * raw bytes); the plugin's `receive` verifies and reads them and answers the messages it
 * found, which the HOST records durably (deduplicated, one chat turn each, as for every
 * adapter: inbound.ts) before the channel is answered. The agent's answer goes back
 * through the plugin's `send`, which reaches the network only through `kowalski.fetch`
 * and only to the hosts it was granted. The plugin is given no token and no way into the
 * API: it sees the request, its section's settings, and the answers to send.
 */
import { KowalskiError, messageOf } from '../../../core/index.js';
import type { InboundAnswer, InboundRequest } from '../http-inbound.js';
import { adapterConfigError, secretSetting, stringSetting } from '../settings.js';
import type { AdapterDefinition, AdapterHost, AdapterInstance, InboundRecord, PluginAdapterCalls } from '../types.js';
import { readReceiveAnswer } from './answer.js';

export interface PluginAdapterSettings {
  /** `plugin`: the plugin's name (as `kowalski plugins` lists it). */
  plugin: string;
  /** `adapter` (default: the section's name): the name of one of the plugin's `[[adapters]]`. */
  adapter: string;
  /** The section's other keys, given to the plugin's `receive` and `send` (`<key>_env = "NAME"` read from the environment as `<key>`). */
  options: Record<string, string | number | boolean>;
}

/** A running plugin adapter: its route hands it each request. */
export interface PluginAdapterInstance extends AdapterInstance {
  /** The plugin's verdict on one request, its messages recorded; a failure of the plugin (crashed, timed out, not granted, a bad answer) throws with its code and is counted on the adapter's status. */
  handle(request: InboundRequest): Promise<InboundAnswer>;
}

const PLUGIN_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const OWN_KEYS = ['plugin', 'adapter'];

function options(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, name: string): PluginAdapterSettings['options'] {
  const out: PluginAdapterSettings['options'] = {};
  for (const [key, value] of Object.entries(raw)) {
    if (OWN_KEYS.includes(key)) continue;
    if (key.endsWith('_env')) {
      const base = key.slice(0, -4);
      out[base] = secretSetting(raw, env, name, base, { required: true });
    } else if (raw[`${key}_env`] === undefined) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw adapterConfigError(name, key, 'a plugin adapter takes strings, numbers and true/false only');
      out[key] = value;
    }
  }
  return out;
}

/** Request headers as plain strings (several values joined with ", "). */
function plainHeaders(headers: InboundRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

export const pluginAdapter: AdapterDefinition<PluginAdapterSettings> = {
  type: 'plugin',
  secretKeys: [],
  settings(raw, env, name) {
    const plugin = stringSetting(raw, name, 'plugin', { required: true });
    if (!PLUGIN_NAME.test(plugin)) throw adapterConfigError(name, 'plugin', `must name a plugin (lowercase letters, digits and -), not ${JSON.stringify(plugin)}`);
    const adapter = stringSetting(raw, name, 'adapter') ?? name;
    return { plugin, adapter, options: options(raw, env, name) };
  },
  async start(settings, host): Promise<PluginAdapterInstance> {
    if (host.pluginAdapter === undefined) throw new KowalskiError('KW_ERR_PLUGIN_ADAPTER', 'this engine has no plugins');
    // Not granted, not found, or no such adapter: the adapter is `error` with the reason.
    const link = host.pluginAdapter(settings.plugin, settings.adapter);
    const stopping = new AbortController();
    return {
      handle: (request) => handle(settings, link, host, request, stopping.signal),
      async reply(record: InboundRecord, answer: string) {
        await link.call('send', {
          deliveryId: record.deliveryId, conversation: record.conversation, from: record.from, text: answer, replyTo: record.replyTo, options: settings.options,
        }, stopping.signal);
        host.activity();
      },
      stop: async () => stopping.abort(new KowalskiError('KW_ERR_ADAPTER_DISABLED', `the adapter of plugin ${settings.plugin} was stopped`)),
    };
  },
};

async function handle(settings: PluginAdapterSettings, link: PluginAdapterCalls, host: AdapterHost, request: InboundRequest, signal: AbortSignal): Promise<InboundAnswer> {
  let value: unknown;
  try {
    value = await link.call('receive', {
      headers: plainHeaders(request.headers), body: request.rawBody.toString('utf8'), bodyBase64: request.rawBody.toString('base64'), options: settings.options,
    }, signal);
  } catch (err) {
    // Its own refusal is an answer (`{status: 401}`); a throw is a failure of the plugin: counted, and its code answered.
    const error = err instanceof KowalskiError && err.code !== 'KW_ERR_TOOL_FAILED' ? err
      : new KowalskiError('KW_ERR_PLUGIN_ADAPTER', `plugin ${settings.plugin}: adapter ${settings.adapter}'s receive failed: ${messageOf(err)}`, { cause: err });
    host.failed(error);
    throw error;
  }
  let answer;
  try {
    answer = readReceiveAnswer(settings.plugin, settings.adapter, value);
  } catch (err) {
    host.failed(err);
    throw err;
  }
  const accepted = answer.messages.map((m) => host.accept(m));
  host.activity();
  return {
    status: answer.status ?? 200,
    body: answer.body ?? { ok: true, records: accepted.map((a) => a.record.id), duplicates: accepted.map((a) => a.status === 'duplicate') },
  };
}
