/** The values of config.toml's secrets, and the server's error answers and log lines with them replaced. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Fastify from 'fastify';
import { KowalskiError } from '../../core/index.js';
import { configSecretValues } from '../../engine/secrets/secret-values.js';
import { scrubSecrets } from '../../engine/secrets/secret-list.js';
import { installErrorHandling } from '../../api/http-errors.js';
import { tempDir } from '../../testkit/tmp.js';

const CONFIG = `[providers.anthropic]
api_key = "sk-ant-first-key-0001"
[store]
url = "postgres://kw:pg-pass-0002@127.0.0.1/kw"
[webhook_secrets]
"hooked/gh" = "whsec-0003"
[[mcp.servers]]
name = "files"
command = "files-mcp"
env = { FILES_KEY = "files-key-0004" }
[adapters.slack]
signing_secret = "slack-sign-0005"
bot_token_env = "SLACK_BOT_TOKEN"
`;

test('every secret config.toml holds is found (a URL gives its password, tables their values, a *_env name is no secret), and the file is read again when it changes', (t) => {
  const file = path.join(tempDir(t), 'config.toml');
  fs.writeFileSync(file, CONFIG);
  const values = configSecretValues(file);
  assert.deepEqual(values().sort(), ['files-key-0004', 'pg-pass-0002', 'sk-ant-first-key-0001', 'slack-sign-0005', 'whsec-0003']);
  assert.equal(values(), values(), 'unchanged: the same list, not read again');
  fs.writeFileSync(file, CONFIG.replace('sk-ant-first-key-0001', 'sk-ant-second-key-0006-longer'));
  assert.ok(values().includes('sk-ant-second-key-0006-longer'));
  assert.ok(!values().includes('sk-ant-first-key-0001'));
  fs.rmSync(file);
  assert.deepEqual(values(), []);
});

test('an error answer and a log line never carry a secret: each is replaced by (secret)', async (t) => {
  const file = path.join(tempDir(t), 'config.toml');
  fs.writeFileSync(file, CONFIG);
  const values = configSecretValues(file);
  const scrub = (text: string): string => scrubSecrets(text, values());
  const internal: unknown[] = [];
  const app = Fastify();
  installErrorHandling(app, { onInternal: (err) => internal.push(err), log: () => undefined, scrub });
  app.get('/known', () => {
    throw new KowalskiError('KW_ERR_MODEL_AUTH', 'the provider refused the key sk-ant-first-key-0001 (postgres://kw:pg-pass-0002@127.0.0.1/kw)');
  });
  app.get('/bug', () => {
    throw new Error('a bug printed slack-sign-0005');
  });
  t.after(() => app.close());
  const known = (await app.inject({ url: '/known' })).json() as { error: { code: string; message: string } };
  assert.equal(known.error.code, 'KW_ERR_MODEL_AUTH');
  assert.equal(known.error.message, 'the provider refused the key (secret) (postgres://kw:(secret)@127.0.0.1/kw)');
  const bug = (await app.inject({ url: '/bug' })).json() as { error: { code: string; message: string } };
  assert.equal(bug.error.message, 'internal error: a bug printed (secret)');
  assert.equal(internal.length, 1);
});
