/**
 * `kowalski mcp serve rookery` as an outside MCP client meets it: the real CLI started by
 * the SDK's stdio client (and reached over Streamable HTTP with a token), every tool
 * called; the horde it writes is then validated and run by the real CLI.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { DraftProblem, HordeDraft } from '../../engine/rookery/index.js';
import { call, callError } from '../support/mcp-tools.js';
import { REPO, cli, cliSandbox, outputOf, startCli, stdoutJson } from '../../testkit/cli.js';
import type { RunJson } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { cliArgs } from '../../testkit/dist.js';

const TOKEN = 'kw-rookery-test-token';
const TOOLS = ['rookery_example_draft', 'rookery_validate_draft', 'rookery_parse_draft', 'rookery_give_birth', 'rookery_list_step_kinds', 'rookery_list_hordes'];

/** A draft of tool steps only (1.x shape, to prove it is read): a form, then a harmless check that runs without asking. */
function toolDraft(proof: string): Record<string, unknown> {
  return {
    id: 'Check Proof',
    display_name: 'Check proof',
    description: 'Takes a question and proves a command ran.',
    confirm_commands: false,
    pipeline: ['Intake', 'Check'],
    penguins: [
      { name: 'Intake', kind: 'ingest' },
      { name: 'Check', kind: 'verify', verify_command: `echo {{input.question}} >> ${proof}` },
    ],
  };
}

interface Birth { ok: boolean; horde_id: string; horde_root: string; validate_ok: boolean; validate_errors: string | null; problems: DraftProblem[] }

async function stdioClient(t: TestContext, home: string, outputRoot: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cliArgs(), 'mcp', 'serve', 'rookery', '--output-root', outputRoot],
    cwd: REPO,
    env: { ...process.env, KOWALSKI_HOME: home } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rookery-test', version: '1.0.0' });
  await client.connect(transport);
  cleanups(t)(() => client.close());
  return client;
}

describe('kowalski mcp serve rookery', { concurrency: true }, () => {
  it('over stdio: every tool; the horde it writes validates and runs to succeeded', async (t) => {
    const { home, root } = cliSandbox(t);
    const out = path.join(root, 'hordes');
    fs.mkdirSync(out);
    const client = await stdioClient(t, home, out);
    assert.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), [...TOOLS].sort());

    const { draft: example } = await call<{ draft: HordeDraft }>(client, 'rookery_example_draft');
    assert.deepEqual(example.steps.map((s) => s.kind), ['ingest', 'process', 'deliver']);
    const valid = await call<{ ok: boolean; errors: string | null; problems: DraftProblem[]; draft: HordeDraft }>(client, 'rookery_validate_draft', { draft: example });
    assert.deepEqual([valid.ok, valid.errors, valid.problems], [true, null, []]);
    assert.deepEqual(valid.draft, example);
    const asText = await call<{ ok: boolean; draft: HordeDraft }>(client, 'rookery_validate_draft', { draft: JSON.stringify(example) });
    assert.deepEqual([asText.ok, asText.draft], [true, example], 'a draft sent as a JSON string is read too');

    const invented = { ...example, steps: example.steps.map((s) => (s.name === 'process' ? { ...s, kind: 'summon_llama' } : s)) };
    const bad = await call<{ ok: boolean; errors: string | null; problems: DraftProblem[] }>(client, 'rookery_validate_draft', { draft: invented });
    assert.equal(bad.ok, false);
    assert.match(bad.errors ?? '', /summon_llama.*\[KW_ERR_STEP_KIND_UNKNOWN\]/);
    const kindProblem = bad.problems.find((p) => p.code === 'KW_ERR_STEP_KIND_UNKNOWN');
    assert.equal(kindProblem?.step, 'process');
    assert.match(kindProblem?.message ?? '', /"summon_llama"/);

    const parsed = await call<{ ok: true; draft: HordeDraft }>(client, 'rookery_parse_draft', { text: `Here it is:\n\n\`\`\`json\n${JSON.stringify(toolDraft('/dev/null'))}\n\`\`\`\n` });
    assert.equal(parsed.draft.id, 'check-proof');
    const garbage = await call<{ ok: boolean; error: string }>(client, 'rookery_parse_draft', { text: 'a horde that reads the news, please' });
    assert.equal(garbage.ok, false);
    assert.match(garbage.error, /no draft found/);
    // 20,000 steps of TOML (the finding: over 60 s, the server busy all along): counted and refused at once.
    const started = performance.now();
    const huge = await call<{ ok: boolean; error: string }>(client, 'rookery_parse_draft', { text: `id = "x"\n${'[[steps]]\nname = "s"\nkind = "process"\n'.repeat(20_000)}` });
    assert.match(huge.error, /20000 TOML table headers.*\[KW_ERR_DRAFT_TOO_LARGE\]/);
    assert.ok(performance.now() - started < 5000, `answered after ${performance.now() - started} ms`);
    const hugeDraft = { id: 'x', steps: Array.from({ length: 20_000 }, (_, i) => ({ name: `s${i}`, kind: 'process' })) };
    assert.match(await callError(client, 'rookery_validate_draft', { draft: hugeDraft }), /^\[KW_ERR_DRAFT_TOO_LARGE\] the draft has 20000 steps/);

    const kinds = await call<{ kinds: { kind: string; model: boolean; summary: string }[] }>(client, 'rookery_list_step_kinds');
    assert.deepEqual(kinds.kinds.filter((k) => ['ingest', 'verify', 'deliver'].includes(k.kind)).map((k) => [k.kind, k.model]), [['ingest', false], ['verify', false], ['deliver', true]]);

    const proof = path.join(root, 'proof.txt');
    const born = await call<Birth>(client, 'rookery_give_birth', { draft: toolDraft(proof) });
    assert.deepEqual([born.ok, born.horde_id, born.horde_root, born.validate_ok, born.validate_errors], [true, 'check-proof', path.join(out, 'check-proof'), true, null]);
    const refused = await callError(client, 'rookery_give_birth', { draft: toolDraft(proof) });
    assert.match(refused, /^\[KW_ERR_HORDE_EXISTS\] .*check-proof/);
    const again = await call<Birth>(client, 'rookery_give_birth', { draft: toolDraft(proof), overwrite: true });
    assert.equal(again.validate_ok, true);
    assert.match(await callError(client, 'rookery_give_birth', { draft: invented }), /^\[KW_ERR_DRAFT_INVALID\] [\s\S]*summon_llama/);
    assert.match(await callError(client, 'rookery_give_birth', { draft: example, output_root: 'nope' }), /^\[KW_ERR_USAGE\] output_root `nope` is not a folder/);

    const listed = await call<{ hordes: { id: string; display_name: string; path: string; valid: boolean }[] }>(client, 'rookery_list_hordes');
    assert.deepEqual(listed.hordes, [{ id: 'check-proof', display_name: 'Check proof', path: born.horde_root, valid: true }]);

    const validated = await cli(home, ['validate', born.horde_root]);
    assert.equal(validated.code, 0, outputOf(validated));
    const run = await cli(home, ['run', born.horde_root, '--input', 'question=does it run', '--json']);
    assert.equal(run.code, 0, outputOf(run));
    const view = stdoutJson<RunJson>(run);
    assert.equal(view.state, 'succeeded');
    assert.deepEqual(view.steps.map((s) => [s.name, s.state]), [['intake', 'passed'], ['check', 'passed']]);
    assert.equal(fs.readFileSync(proof, 'utf8'), 'does it run\n');
  });

  it('output_root stays inside --output-root: .., absolute, ~ and links leading out are refused, naming the argument; overwrite touches nothing outside', async (t) => {
    const { home, root } = cliSandbox(t);
    const out = path.join(root, 'a', 'b', 'hordes');
    fs.mkdirSync(path.join(out, 'team'), { recursive: true });
    // Folders outside the root, each holding a file that must survive: what the finding's overwrite lost.
    const victim = path.join(root, 'a', 'rookery-demo');
    const elsewhere = path.join(root, 'elsewhere');
    for (const dir of [victim, elsewhere, path.join(elsewhere, 'rookery-demo')]) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'keep.txt'), 'mine');
    }
    fs.symlinkSync(elsewhere, path.join(out, 'out-link'));
    fs.symlinkSync(path.join(root, 'a'), path.join(out, 'team', 'up'));
    const client = await stdioClient(t, home, out);
    const { draft } = await call<{ draft: HordeDraft }>(client, 'rookery_example_draft');

    const escapes: [string, RegExp][] = [
      ['..', /^\[KW_ERR_PATH_ESCAPES\] output_root `\.\.` climbs out of its folder with \.\./],
      ['../../..', /^\[KW_ERR_PATH_ESCAPES\] output_root `\.\.\/\.\.\/\.\.` climbs out/],
      ['team/../..', /^\[KW_ERR_PATH_ESCAPES\] output_root .* climbs out/],
      ['team\\..\\..', /^\[KW_ERR_PATH_ESCAPES\] output_root .* climbs out/],
      [elsewhere, /^\[KW_ERR_PATH_ESCAPES\] output_root `.*elsewhere` must be a relative path/],
      ['/', /^\[KW_ERR_PATH_ESCAPES\] output_root `\/` must be a relative path/],
      ['~/x', /^\[KW_ERR_PATH_ESCAPES\] output_root `~\/x` must be a relative path/],
      ['out-link', /^\[KW_ERR_PATH_ESCAPES\] output_root `out-link` leads outside .* \(through a link, to .*elsewhere\)/],
      ['team/up', /^\[KW_ERR_PATH_ESCAPES\] output_root `team\/up` leads outside/],
    ];
    for (const [given, refusal] of escapes) {
      for (const overwrite of [false, true]) {
        assert.match(await callError(client, 'rookery_give_birth', { draft, output_root: given, overwrite }), refusal, `give_birth into ${given}`);
      }
      assert.match(await callError(client, 'rookery_list_hordes', { output_root: given }), refusal, `list_hordes of ${given}`);
    }
    for (const dir of [victim, elsewhere, path.join(elsewhere, 'rookery-demo')]) {
      assert.deepEqual(fs.readdirSync(dir).filter((n) => n !== 'rookery-demo'), ['keep.txt'], `${dir} is untouched`);
      assert.equal(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8'), 'mine');
    }

    // Inside the root: a subfolder is fine, and a horde folder that is a link leading out is replaced by overwrite, not written through.
    const sub = await call<Birth>(client, 'rookery_give_birth', { draft, output_root: 'team' });
    assert.equal(sub.horde_root, path.join(out, 'team', 'rookery-demo'));
    assert.deepEqual((await call<{ hordes: { id: string }[] }>(client, 'rookery_list_hordes', { output_root: './team/' })).hordes.map((h) => h.id), ['rookery-demo']);
    fs.symlinkSync(path.join(elsewhere, 'rookery-demo'), path.join(out, 'rookery-demo'));
    assert.match(await callError(client, 'rookery_give_birth', { draft }), /^\[KW_ERR_HORDE_EXISTS\]/);
    const replaced = await call<Birth>(client, 'rookery_give_birth', { draft, overwrite: true });
    assert.equal(replaced.horde_root, path.join(out, 'rookery-demo'));
    assert.ok(!fs.lstatSync(replaced.horde_root).isSymbolicLink() && fs.statSync(path.join(replaced.horde_root, 'horde.md')).isFile());
    assert.deepEqual(fs.readdirSync(path.join(elsewhere, 'rookery-demo')), ['keep.txt'], 'the folder the link led to is untouched');
    assert.match(await callError(client, 'rookery_list_hordes', { output_root: 'nope' }), /^\[KW_ERR_USAGE\] output_root `nope` is not a folder/);
  });

  it('over Streamable HTTP: the token is required, a foreign Host is refused, SIGTERM ends it', async (t) => {
    const { home, root } = cliSandbox(t);
    const server = startCli(home, ['mcp', 'serve', 'rookery', '--output-root', root, '--http', '--port', '0', '--token', TOKEN]);
    cleanups(t)(() => server.child.kill('SIGKILL'));
    const line = await server.stderrLine(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const url = new URL(line.slice(line.indexOf('http')));

    const client = new Client({ name: 'rookery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    const { draft } = await call<{ draft: HordeDraft }>(client, 'rookery_example_draft');
    const born = await call<Birth>(client, 'rookery_give_birth', { draft });
    assert.equal(born.horde_root, path.join(root, 'rookery-demo'));
    assert.ok(fs.statSync(path.join(born.horde_root, 'prompts', 'deliver.md')).isFile());
    await client.close();

    for (const headers of [{}, { Authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const stranger = new Client({ name: 'stranger', version: '1.0.0' });
      await assert.rejects(stranger.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } })), /401|bearer token/i);
    }
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(rebound.status, 403, 'a Host header naming another site is refused (DNS rebinding)');
    assert.match(rebound.body, /KW_ERR_FORBIDDEN_HOST/);

    server.child.kill('SIGTERM');
    const done = await server.exited;
    assert.equal(done.code, 0, outputOf(done));
    assert.equal(done.stdout, '');
  });

  it('refuses an --output-root that is not a folder, and --http without a token, on loopback too (exit 2)', async (t) => {
    const { home, root } = cliSandbox(t);
    const file = path.join(root, 'file.txt');
    fs.writeFileSync(file, 'x');
    const [missing, notDir, open] = await Promise.all([
      cli(home, ['mcp', 'serve', 'rookery', '--output-root', path.join(root, 'nope')]),
      cli(home, ['mcp', 'serve', 'rookery', '--output-root', file]),
      cli(home, ['mcp', 'serve', 'rookery', '--http', '--host', '0.0.0.0']),
    ]);
    const local = await cli(home, ['mcp', 'serve', 'rookery', '--http'], { env: { KOWALSKI_MCP_TOKEN: undefined } });
    assert.equal(local.code, 2, outputOf(local));
    assert.match(local.stderr, /--http needs --token .*on loopback too.*write hordes.*\[KW_ERR_USAGE\]/);
    for (const r of [missing, notDir]) {
      assert.equal(r.code, 2, outputOf(r));
      assert.match(r.stderr, /--output-root .* is not a folder \[KW_ERR_USAGE\]/);
    }
    assert.equal(open.code, 2, outputOf(open));
    assert.match(open.stderr, /--token.*write hordes.*\[KW_ERR_USAGE\]/);
  });
});
