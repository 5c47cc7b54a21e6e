/**
 * The one list of the data folder's secrets (engine/secrets/secret-list.ts): a secret key
 * that config.toml can hold — documented in a TOML example of the docs, declared by an
 * adapter, or read by name in the source — and is not on the list fails here; backup's
 * redaction and the adapters' masking and message scrubbing follow the list.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { TOKEN_FILE } from '../../api/token.js';
import { redactConfig } from '../../engine/backup/secrets.js';
import { ADAPTER_DEFINITIONS } from '../../engine/adapters/definitions.js';
import { secretSettingValues, shownSettings } from '../../engine/adapters/settings.js';
import { CONFIG_SECRETS, SECRET_FILES, SECRET_FOLDERS, SECRET_KEY_NAME, configSecrets, scrubSecrets } from '../../engine/secrets/secret-list.js';
import { SECRETS_FOLDER, signInFile } from '../../agents/mcp/oauth-store.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every dotted key of a parsed TOML whose own name says it holds a secret (arrays of tables as `[i]`). */
function secretNamedKeys(value: unknown, name = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => secretNamedKeys(v, `${name}[${i}]`));
  if (!isTable(value)) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const at = name === '' ? key : `${name}.${key}`;
    return SECRET_KEY_NAME.test(key) ? [at] : secretNamedKeys(v, at);
  });
}

function tomlBlocks(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

void test('every secret-named key in a TOML example of the docs (and README) is on the list', () => {
  const files = [path.join(ROOT, 'README.md'), ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f))];
  let checked = 0;
  for (const file of files) {
    for (const block of tomlBlocks(file)) {
      let raw: Record<string, unknown>;
      try {
        raw = parse(block) as Record<string, unknown>;
      } catch {
        continue; // a fragment with "…" placeholders
      }
      const found = new Set(configSecrets(raw).map((f) => f.name));
      for (const key of secretNamedKeys(raw)) {
        checked++;
        assert.ok(found.has(key) || [...found].some((f) => key.startsWith(`${f}.`) || key.startsWith(`${f}[`)), `${path.relative(ROOT, file)}: ${key} holds a secret that engine/secrets/secret-list.ts does not list`);
      }
    }
  }
  assert.ok(checked >= 3, `the docs' TOML examples hold secrets to check (${checked})`);
});

void test("every adapter's declared secret is on the list (found in config.toml, masked, scrubbed)", () => {
  for (const d of ADAPTER_DEFINITIONS) {
    for (const key of d.secretKeys) {
      const section: Record<string, unknown> = { type: d.type };
      const parts = key.split('.');
      let table = section;
      for (const part of parts.slice(0, -1)) table = (table[part] = {}) as Record<string, unknown>;
      table[parts.at(-1)!] = 'SENTINEL-value';
      const names = configSecrets({ adapters: { x: section } }).map((f) => f.name);
      assert.deepEqual(names, [`adapters.x.${key}`], `${d.type}'s ${key}`);
      assert.doesNotMatch(JSON.stringify(shownSettings(section, [])), /SENTINEL/, `${d.type}'s ${key} is masked without its definition`);
      assert.equal(scrubSecrets('failed: SENTINEL-value rejected', secretSettingValues(section, [], {})), 'failed: (secret) rejected');
    }
  }
});

/** Words of the OAuth protocol (RFC 6749 fields and grant types), not config.toml keys: MCP sign-ins keep their tokens in secrets/ (SECRET_FOLDERS). */
const OAUTH_WORDS: ReadonlySet<string> = new Set(['access_token', 'refresh_token', 'id_token']);

void test('a string in the source that names a secret config key is covered by the list', () => {
  const leaves = new Set([...CONFIG_SECRETS.map((s) => s.path.split('.').at(-1)!.replace('[]', '')), ...OAUTH_WORDS]);
  const misses: string[] = [];
  const scan = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist') scan(abs);
      else if (entry.isFile() && entry.name.endsWith('.ts')) {
        const rel = path.relative(ROOT, abs);
        // [adapters.*] is covered by name ('adapters.*.~'); elsewhere a key is covered by its path's last key.
        if (rel.startsWith('engine/adapters/') || rel === 'engine/secrets/secret-list.ts') continue;
        for (const m of fs.readFileSync(abs, 'utf8').matchAll(/['"`]([a-z_.]*(?:secret|token|password|passwd|api_key|private_key))['"`]/g)) {
          const leaf = (m[1] ?? '').split('.').at(-1)!;
          if (!leaves.has(leaf)) misses.push(`${rel}: ${m[1]}`);
        }
      }
    }
  };
  for (const dir of ['engine', 'agents', 'api', 'bin', 'steps', 'bundles', 'core']) scan(path.join(ROOT, dir));
  assert.deepEqual(misses, [], 'each of these is read from config.toml as a secret? then put it on engine/secrets/secret-list.ts');
});

void test("an adapter's secrets read from the environment (<key>_env) are scrubbed from messages too; the variable's name is shown, never its value", () => {
  const section = { type: 'webhook', secret_env: 'KW_HOOK', caldav: { password_env: 'KW_PW' }, url: 'http://x' };
  const env = { KW_HOOK: 'hook-secret-value', KW_PW: 'pw-value' };
  assert.deepEqual(secretSettingValues(section, [], env).sort(), ['hook-secret-value', 'pw-value']);
  assert.equal(scrubSecrets('bad hook-secret-value and pw-value at http://x', secretSettingValues(section, [], env)), 'bad (secret) and (secret) at http://x');
  assert.deepEqual(shownSettings(section, []), { type: 'webhook', secret: '(from $KW_HOOK)', caldav: { password: '(from $KW_PW)' }, url: 'http://x' });
});

void test('the API token file is on the list of secret files', () => {
  assert.ok(SECRET_FILES.includes(TOKEN_FILE));
});

void test("MCP sign-ins (kowalski mcp login) are kept in a folder on the list of secret folders", () => {
  assert.ok(SECRET_FOLDERS.includes(SECRETS_FOLDER));
  const rel = path.relative('/data', signInFile('/data', 'remote'));
  assert.equal(rel.split(path.sep)[0], SECRETS_FOLDER);
});

void test("backup's redaction removes every listed secret, keeps names of variables and a PostgreSQL URL without its password", () => {
  const text = `
[providers.openai]
api_key = "S-1"
base_url = "http://127.0.0.1:9/v1"
[store]
url = "postgres://kw:S-2@db.example.org:5432/kowalski"
[adapters.s]
type = "slack"
signing_secret = "S-3"
bot_token_env = "SLACK_BOT_TOKEN"
[[mcp.servers]]
name = "a"
command = "x"
env = { API_KEY = "S-4" }
`;
  const out = redactConfig(text);
  assert.deepEqual(out.redacted, ['providers.openai.api_key', 'adapters.s.signing_secret', 'mcp.servers[0].env', 'store.url']);
  assert.doesNotMatch(out.text, /S-\d/);
  const raw = parse(out.text) as { store: { url: string }; adapters: { s: Record<string, unknown> } };
  assert.equal(raw.store.url, 'postgres://kw@db.example.org:5432/kowalski');
  assert.equal(raw.adapters.s.bot_token_env, 'SLACK_BOT_TOKEN');
  assert.deepEqual(redactConfig('[store]\nurl = "postgres://db.example.org/k"\n').redacted, []);
});

void test('an empty secret table holds no secret: a backup of the file kowalski init wrote lists nothing as left out of it', () => {
  assert.deepEqual(configSecrets({ webhook_secrets: {} }).map((f) => f.name), []);
  assert.deepEqual(configSecrets({ webhook_secrets: { digest: 's3cret' } }).map((f) => f.name), ['webhook_secrets']);
  const example = fs.readFileSync(path.join(ROOT, 'config.example.toml'), 'utf8');
  assert.deepEqual(redactConfig(example).redacted, []);
});
