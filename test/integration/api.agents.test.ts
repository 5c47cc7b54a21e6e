/** `/api/agents` through a real engine and API: the list, one profile's file, validate, save (422 with every problem), remove. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { listen, testApi } from '../support/api.js';
import { AUTH } from '../support/token.js';
import { installExample } from '../support/plugin-home.js';
import { tempDir } from '../../testkit/tmp.js';

const critic = (extra = ''): string => `---\nname = "critic"\ndescription = "Criticises kindly."\n${extra}\n---\n\nYou criticise kindly.\n`;

test('the list holds the built-in profiles; a broken user file is listed among the problems with file, key, line and code', async (t) => {
  const api = await testApi(t);
  fs.mkdirSync(path.join(api.home, 'team'));
  fs.writeFileSync(path.join(api.home, 'team', 'broken.md'), critic('max_iterations = 0').replace('"critic"', '"broken"'));
  api.engine.team.refresh();
  const r = await api.call('GET', '/api/agents');
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.agents.map((a: any) => [a.name, a.origin]), [['archivist', 'builtin'], ['assistant', 'builtin'], ['builder', 'builtin'], ['researcher', 'builtin'], ['scribe', 'builtin']]);
  const researcher = r.json.agents[3];
  assert.deepEqual(researcher.tools, ['web_search', 'web_fetch']);
  assert.equal(typeof researcher.prompt, 'string');
  assert.deepEqual(r.json.problems, [{
    file: path.join(api.home, 'team', 'broken.md'), code: 'KW_ERR_KEY_VALUE', key: 'max_iterations', line: 4,
    message: 'max_iterations must be a whole number of at least 1, not 0',
  }]);
});

test('one profile comes with its file text; unknown names are 404 naming the known agents, malformed ones 400', async (t) => {
  const api = await testApi(t);
  const r = await api.call('GET', '/api/agents/scribe');
  assert.equal(r.status, 200);
  assert.equal(r.json.name, 'scribe');
  assert.equal(r.json.origin, 'builtin');
  assert.equal(r.json.hasBuiltin, true);
  assert.match(r.json.text, /^---\nname = "scribe"/);
  assert.equal(r.json.profile.description, 'Writes, files and tidies notes in the vault; every write is recorded and can be reverted.');
  assert.deepEqual(r.json.problems, []);
  const missing = await api.call('GET', '/api/agents/ghost');
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.code, 'KW_ERR_AGENT_NOT_FOUND');
  assert.match(missing.json.error.message, /known agents: archivist, assistant, builder, researcher, scribe/);
  const bad = await api.call('GET', '/api/agents/..%2Fconfig');
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /^params\/name /);
});

test('validate answers the problems save would have, and writes nothing', async (t) => {
  const api = await testApi(t);
  const ok = await api.call('POST', '/api/agents/validate', { name: 'critic', text: critic() });
  assert.deepEqual([ok.status, ok.json], [200, { problems: [] }]);
  const bad = await api.call('POST', '/api/agents/validate', { name: 'Critic!', text: critic('tools = ["shell"]') });
  assert.equal(bad.status, 200);
  assert.deepEqual(bad.json.problems.map((p: any) => [p.code, p.key ?? null, p.line ?? null]), [
    ['KW_ERR_AGENT_NAME', null, null], ['KW_ERR_AGENT_NAME', 'name', 2], ['KW_ERR_TOOL_UNKNOWN', 'tools[0]', 4],
  ]);
  assert.equal(fs.existsSync(path.join(api.home, 'team', 'critic.md')), false);
  const extra = await api.call('POST', '/api/agents/validate', { name: 'critic', text: '', also: 1 });
  assert.equal(extra.status, 400);
  assert.equal(extra.json.error.code, 'KW_ERR_BAD_REQUEST');
});

test('save over a real socket: 422 with every problem and nothing written, then 200 with the profile, listed at once; an override and its reset', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base } = await listen(api);
  const put = async (name: string, text: string) => {
    const res = await fetch(`${base}/api/agents/${name}`, { method: 'PUT', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    return { status: res.status, json: await res.json() as any };
  };
  const file = path.join(api.home, 'team', 'critic.md');
  const refused = await put('critic', critic('model = "gpt"\ncolour = "red"'));
  assert.equal(refused.status, 422);
  assert.equal(refused.json.error.code, 'KW_ERR_AGENT_INVALID');
  assert.deepEqual(refused.json.problems.map((p: any) => [p.code, p.key, p.line]), [['KW_ERR_MODEL_REF', 'model', 4], ['KW_ERR_AGENT_KEY_UNKNOWN', 'colour', 5]]);
  assert.equal(fs.existsSync(file), false);

  const saved = await put('critic', critic('tools = []\nmax_iterations = 4'));
  assert.equal(saved.status, 200);
  assert.deepEqual(saved.json, { name: 'critic', description: 'Criticises kindly.', tools: [], maxIterations: 4, prompt: 'You criticise kindly.', origin: 'user', file });
  assert.equal(fs.readFileSync(file, 'utf8'), critic('tools = []\nmax_iterations = 4'));
  const list = await (await fetch(`${base}/api/agents`, { headers: AUTH })).json() as any;
  assert.ok(list.agents.some((a: any) => a.name === 'critic' && a.origin === 'user'));

  const override = await put('scribe', '---\nname = "scribe"\ndescription = "My scribe."\ntools = ["read_file"]\n---\nTidy.\n');
  assert.deepEqual([override.status, override.json.origin, override.json.description], [200, 'user', 'My scribe.']);
  const reset = await fetch(`${base}/api/agents/scribe`, { method: 'DELETE', headers: AUTH });
  assert.equal(reset.status, 204);
  const back = await (await fetch(`${base}/api/agents/scribe`, { headers: AUTH })).json() as any;
  assert.deepEqual([back.origin, back.profile.description], ['builtin', 'Writes, files and tidies notes in the vault; every write is recorded and can be reverted.']);
});

test('remove: a user profile goes; a built-in is 409, an unknown name 404', async (t) => {
  const api = await testApi(t);
  assert.equal((await api.call('PUT', '/api/agents/critic', { text: critic() })).status, 200);
  assert.equal((await api.call('DELETE', '/api/agents/critic')).status, 204);
  assert.equal(api.engine.team.get('critic'), undefined);
  const builtin = await api.call('DELETE', '/api/agents/assistant');
  assert.deepEqual([builtin.status, builtin.json.error.code], [409, 'KW_ERR_AGENT_BUILTIN']);
  const ghost = await api.call('DELETE', '/api/agents/ghost');
  assert.deepEqual([ghost.status, ghost.json.error.code], [404, 'KW_ERR_AGENT_NOT_FOUND']);
});

test('a profile naming a plugin\'s tool: unknown while the plugin is pending, in effect once it is granted, unknown again once revoked', async (t) => {
  const api = await testApi(t);
  installExample(api.home, fs.realpathSync(tempDir(t, 'kw-plug-docs-')));
  fs.mkdirSync(path.join(api.home, 'team'));
  fs.writeFileSync(path.join(api.home, 'team', 'greeter.md'), '---\nname = "greeter"\ndescription = "Greets."\ntools = ["hello__greet"]\n---\n\nYou greet.\n');
  api.engine.team.refresh();
  await api.call('POST', '/api/plugins/rescan');
  const listed = async (): Promise<[string[], string[]]> => {
    const r = (await api.call('GET', '/api/agents')).json;
    return [r.agents.map((a: any) => a.name).filter((n: string) => n === 'greeter'), r.problems.map((p: any) => `${p.code} ${p.key}`)];
  };
  assert.deepEqual(await listed(), [[], ['KW_ERR_TOOL_UNKNOWN tools[0]']]);
  assert.equal((await api.call('POST', '/api/plugins/hello/grant', { by: 'ann' })).status, 200);
  assert.deepEqual(await listed(), [['greeter'], []], 'the grant is seen without touching the profile');
  await api.call('POST', '/api/plugins/hello/revoke');
  const [, problems] = await listed();
  assert.deepEqual(problems, ['KW_ERR_TOOL_UNKNOWN tools[0]']);
});
