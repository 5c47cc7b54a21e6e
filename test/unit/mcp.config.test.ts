/** `[[mcp.servers]]` in config.toml: what is accepted, and every refusal naming its key. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'smol-toml';
import { KowalskiError } from '../../core/index.js';
import { mcpServersFrom } from '../../agents/index.js';

const FILE = '/data/kowalski/config.toml';
const HOME = '/home/op';

function servers(toml: string) {
  return mcpServersFrom(parse(toml) as Record<string, unknown>, FILE, HOME);
}

/** The error a config gives: KW_ERR_MCP_CONFIG, where = {file, key}, the key in the message. */
function refusal(toml: string): KowalskiError {
  try {
    servers(toml);
  } catch (err) {
    assert.ok(err instanceof KowalskiError, `a KowalskiError, not ${String(err)}`);
    assert.equal(err.code, 'KW_ERR_MCP_CONFIG');
    assert.equal(err.where?.file, FILE);
    assert.ok(err.where?.key !== undefined && err.message.includes(err.where.key), `the message names ${err.where?.key}: ${err.message}`);
    return err;
  }
  assert.fail(`accepted:\n${toml}`);
}

describe('mcpServersFrom', () => {
  it('no [mcp] table, or no servers in it, is no servers', () => {
    assert.deepEqual(servers(''), []);
    assert.deepEqual(servers('[mcp]\n'), []);
    assert.deepEqual(servers('[model]\ndefault = "ollama:x"\n'), []);
  });

  it('reads a stdio server with defaults, ~/ expanded in command and cwd, a relative cwd taken from the config folder', () => {
    assert.deepEqual(servers(`
[[mcp.servers]]
name = "data"
command = "~/bin/data-server"
args = ["serve", "--root", "~/Spreadsheets"]
env = { API_KEY = "k", MODE = "ro" }
cwd = "~/work"

[[mcp.servers]]
name = "plain"
command = "mcp-plain"
cwd = "servers/plain"
timeout_secs = 0.25
connect_timeout_secs = 5
`), [
      {
        name: 'data', transport: 'stdio', timeoutMs: 60_000, connectTimeoutMs: 20_000,
        // args are the server's business: passed exactly as written
        command: '/home/op/bin/data-server', args: ['serve', '--root', '~/Spreadsheets'], env: { API_KEY: 'k', MODE: 'ro' }, cwd: '/home/op/work',
      },
      { name: 'plain', transport: 'stdio', timeoutMs: 250, connectTimeoutMs: 5000, command: 'mcp-plain', args: [], env: {}, cwd: '/data/kowalski/servers/plain' },
    ]);
  });

  it('reads a Streamable HTTP server with and without a token', () => {
    assert.deepEqual(servers(`
[[mcp.servers]]
name = "remote"
url = "https://mcp.example.com/mcp"
token = "s3cret"

[[mcp.servers]]
name = "local_1"
url = "http://127.0.0.1:9000/mcp"
`), [
      { name: 'remote', transport: 'http', timeoutMs: 60_000, connectTimeoutMs: 20_000, url: 'https://mcp.example.com/mcp', token: 's3cret' },
      { name: 'local_1', transport: 'http', timeoutMs: 60_000, connectTimeoutMs: 20_000, url: 'http://127.0.0.1:9000/mcp' },
    ]);
  });

  it('refuses a malformed [mcp] or mcp.servers', () => {
    assert.equal(refusal('mcp = 3').where?.key, 'mcp');
    assert.equal(refusal('[mcp]\nservers = "x"').where?.key, 'mcp.servers');
    assert.equal(refusal('[mcp]\nservers = [1]').where?.key, 'mcp.servers[0]');
  });

  const cases: [what: string, entry: string, key: string, says: RegExp][] = [
    ['a missing name', 'command = "x"', 'name', /required/],
    ['a name with capitals', 'name = "Data"\ncommand = "x"', 'name', /lower-case/],
    ['a name with a dot (it would break server.tool)', 'name = "a.b"\ncommand = "x"', 'name', /lower-case/],
    ['a name starting with -', 'name = "-a"\ncommand = "x"', 'name', /lower-case/],
    ['neither command nor url', 'name = "a"', 'command', /command.*url/],
    ['both command and url', 'name = "a"\ncommand = "x"\nurl = "http://h/mcp"', 'url', /not both/],
    ['an empty command', 'name = "a"\ncommand = " "', 'command', /non-empty/],
    ['a command that is not a string', 'name = "a"\ncommand = ["x"]', 'command', /non-empty string/],
    ['args that are not strings', 'name = "a"\ncommand = "x"\nargs = ["a", 1]', 'args', /array of strings/],
    ['args as a string', 'name = "a"\ncommand = "x"\nargs = "a b"', 'args', /array of strings/],
    ['env as an array', 'name = "a"\ncommand = "x"\nenv = ["A=1"]', 'env', /table of strings/],
    ['an env value that is not a string', 'name = "a"\ncommand = "x"\nenv = { PORT = 80 }', 'env.PORT', /string/],
    ['a url that is not a URL', 'name = "a"\nurl = "localhost:9000"', 'url', /http/],
    ['a url of another scheme', 'name = "a"\nurl = "file:///etc/passwd"', 'url', /http/],
    ['a token on a stdio server', 'name = "a"\ncommand = "x"\ntoken = "t"', 'token', /url .*only/],
    ['args on an http server', 'name = "a"\nurl = "http://h/mcp"\nargs = ["x"]', 'args', /command .*only/],
    ['an empty token', 'name = "a"\nurl = "http://h/mcp"\ntoken = ""', 'token', /non-empty/],
    ['a timeout of 0', 'name = "a"\ncommand = "x"\ntimeout_secs = 0', 'timeout_secs', /> 0/],
    ['a negative connect timeout', 'name = "a"\ncommand = "x"\nconnect_timeout_secs = -1', 'connect_timeout_secs', /> 0/],
    ['a timeout past what a timer can hold', 'name = "a"\ncommand = "x"\ntimeout_secs = 9999999', 'timeout_secs', /≤/],
    ['a timeout as a string', 'name = "a"\ncommand = "x"\ntimeout_secs = "60"', 'timeout_secs', /number/],
    ['an unknown key (a typo)', 'name = "a"\ncommand = "x"\ncomand = "y"', 'comand', /unknown key/],
    ['an empty cwd', 'name = "a"\ncommand = "x"\ncwd = ""', 'cwd', /non-empty/],
  ];
  for (const [what, entry, key, says] of cases) {
    it(`refuses ${what}, naming mcp.servers[1].${key}`, () => {
      // the bad entry is the second: the index in the key is the entry's
      const err = refusal(`[[mcp.servers]]\nname = "fine"\ncommand = "ok"\n\n[[mcp.servers]]\n${entry}\n`);
      assert.equal(err.where?.key, `mcp.servers[1].${key}`);
      assert.match(err.message, says);
    });
  }

  it('refuses a name used twice, naming the second', () => {
    const err = refusal('[[mcp.servers]]\nname = "a"\ncommand = "x"\n\n[[mcp.servers]]\nname = "a"\nurl = "http://h/mcp"\n');
    assert.equal(err.where?.key, 'mcp.servers[1].name');
    assert.match(err.message, /"a" is used by another server/);
  });

  it('names the server in the message when it has a name', () => {
    assert.match(refusal('[[mcp.servers]]\nname = "data"\ncommand = 3\n').message, /mcp\.servers\[0\]\.command: .*\("data"\)/);
  });
});
