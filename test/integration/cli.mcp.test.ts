/** `kowalski mcp check`, run as a real process against the servers of a real config.toml. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { REPO, cli, cliSandbox, outputOf, stdoutJson } from '../../testkit/cli.js';

const FLAKY = path.join(REPO, 'test', 'fixtures', 'mcp', 'flaky.mjs');

const WORKING = `
[[mcp.servers]]
name = "flaky"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FLAKY)}]
`;
const BROKEN = `
[[mcp.servers]]
name = "broken"
command = "kw-no-such-mcp-server"
`;

function homeWith(t: TestContext, config: string | null): string {
  const { home } = cliSandbox(t);
  fs.mkdirSync(home, { recursive: true });
  if (config !== null) fs.writeFileSync(path.join(home, 'config.toml'), config);
  return home;
}

interface CheckJson {
  config: string;
  ok: boolean;
  servers: { name: string; transport: string; target: string; ok: boolean; tools: { name: string; description: string }[]; error?: { code: string; message: string }; ms: number }[];
}

describe('kowalski mcp check', { concurrency: true }, () => {
  it('prints each server, whether it answered and its tools; exits 1 when one did not', async (t) => {
    const home = homeWith(t, WORKING + BROKEN);
    const [text, json] = await Promise.all([cli(home, ['mcp', 'check']), cli(home, ['mcp', 'check', '--json'])]);

    assert.equal(text.code, 1, outputOf(text));
    const out = text.stdout;
    assert.match(out, /^flaky: ok \(stdio: \S+ \S+flaky\.mjs\), 6 tools, \d+ ms$/m, out);
    for (const [tool, about] of [['echo', 'Returns the message'], ['pid', 'Returns the process id'], ['hang', 'Never answers']]) {
      assert.match(out, new RegExp(`^ {4}flaky\\.${tool} +${about}$`, 'm'), out);
    }
    assert.match(out, /^broken: FAILED \(stdio: kw-no-such-mcp-server\), \d+ ms$/m, out);
    assert.match(out, /^ {4}MCP server "broken" cannot be started: the command "kw-no-such-mcp-server" was not found \[KW_ERR_MCP_UNAVAILABLE\]$/m, out);
    assert.match(out, /^1 of 2 MCP servers answered\.$/m, out);

    assert.equal(json.code, 1, outputOf(json));
    const body = stdoutJson<CheckJson>(json);
    assert.equal(body.config, path.join(home, 'config.toml'));
    assert.equal(body.ok, false);
    assert.deepEqual(body.servers.map((s) => [s.name, s.transport, s.ok]), [['flaky', 'stdio', true], ['broken', 'stdio', false]]);
    assert.deepEqual(body.servers[0]?.tools.map((tool) => tool.name), ['echo', 'pid', 'crash', 'hang', 'mixed', 'fail']);
    assert.equal(body.servers[1]?.error?.code, 'KW_ERR_MCP_UNAVAILABLE');
    assert.match(body.servers[1]?.error?.message ?? '', /"broken"/);
  });

  it('exits 0 when every server answered', async (t) => {
    const result = await cli(homeWith(t, WORKING), ['mcp', 'check']);
    assert.equal(result.code, 0, outputOf(result));
    assert.match(result.stdout, /^1 of 1 MCP server answered\.$/m);
  });

  it('with no servers configured, says how to add one and exits 0', async (t) => {
    const text = await cli(homeWith(t, null), ['mcp', 'check']);
    assert.equal(text.code, 0, outputOf(text));
    assert.match(text.stdout, /No MCP servers are configured in .*config\.toml/);
    assert.match(text.stdout, /\[\[mcp\.servers\]\]\nname = "files"\ncommand = /);
  });

  it('a bad [[mcp.servers]] entry exits 2 with KW_ERR_MCP_CONFIG naming the key, before starting anything', async (t) => {
    const text = await cli(homeWith(t, `${WORKING}\n[[mcp.servers]]\nname = "Bad Name"\ncommand = "x"\n`), ['mcp', 'check']);
    assert.equal(text.code, 2, outputOf(text));
    assert.equal(text.stdout, '', 'no server was checked');
    assert.match(text.stderr, /^kowalski: \S+\/config\.toml: mcp\.servers\[1\]\.name: must be lower-case .*, not "Bad Name" \[KW_ERR_MCP_CONFIG\]$/m);
  });
});
