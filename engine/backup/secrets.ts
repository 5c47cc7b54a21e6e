/**
 * What a backup leaves out unless asked for secrets (`--with-secrets`): the API token file
 * (`<data>/api-token`) and, in config.toml, provider keys (`[providers.*] api_key`), the web search key
 * (`[tools.web_search] api_key`), webhook secrets (`[webhook_secrets]`), MCP servers' bearer tokens (`token`) and their
 * environment (`env`, where keys usually go). Secrets held in environment variables
 * (`ANTHROPIC_API_KEY`, `BRAVE_API_KEY`, a trigger's `secret_env`) are never in the data
 * folder, so never in a backup.
 */
import { parse, stringify } from 'smol-toml';

/** Files of the data folder's top level that are secrets as a whole. */
export const SECRET_FILES: ReadonlySet<string> = new Set(['api-token']);

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** config.toml without its secret keys (re-written: comments are not kept), and the keys left out. */
export function redactConfig(text: string): { text: string; redacted: string[] } {
  const raw = parse(text) as Record<string, unknown>;
  const redacted: string[] = [];
  const providers = raw.providers;
  if (isTable(providers)) {
    for (const [name, p] of Object.entries(providers)) {
      if (isTable(p) && 'api_key' in p) {
        delete p.api_key;
        redacted.push(`providers.${name}.api_key`);
      }
    }
  }
  const tools = raw.tools;
  if (isTable(tools) && isTable(tools.web_search) && 'api_key' in tools.web_search) {
    delete tools.web_search.api_key;
    redacted.push('tools.web_search.api_key');
  }
  if ('webhook_secrets' in raw) {
    delete raw.webhook_secrets;
    redacted.push('webhook_secrets');
  }
  const mcp = raw.mcp;
  if (isTable(mcp) && Array.isArray(mcp.servers)) {
    for (const [i, s] of (mcp.servers as unknown[]).entries()) {
      if (!isTable(s)) continue;
      for (const key of ['token', 'env']) {
        if (key in s) {
          delete s[key];
          redacted.push(`mcp.servers[${i}].${key}`);
        }
      }
    }
  }
  const note = redacted.length === 0 ? '' : `# kowalski backup: left out (secrets): ${redacted.join(', ')}\n`;
  return { text: redacted.length === 0 ? text : `${note}${stringify(raw)}\n`, redacted };
}
