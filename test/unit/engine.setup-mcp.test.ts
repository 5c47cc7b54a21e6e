/** Setup's MCP servers in config.toml, without a server: what an add and a remove write when the file's layout cannot be edited line by line. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { addMcpServer, removeMcpServer } from '../../engine/setup/setup-mcp.js';
import { tempDir } from '../../testkit/tmp.js';

test('servers written inline cannot be edited line by line: the file is written afresh with every value, and the answer says its comments were dropped', (t) => {
  const file = path.join(tempDir(t, 'kw-setup-mcp-'), 'config.toml');
  fs.writeFileSync(file, '# mine\n[mcp]\nservers = [{ name = "a", command = "x" }]\n[tools]\nroot = "/r"\n');
  const added = addMcpServer(file, { name: 'b', transport: 'http', url: 'http://127.0.0.1:9/mcp' });
  assert.equal(added.written.comments, 'dropped');
  assert.match(added.written.message, /its comments were not kept/);
  const raw = parse(fs.readFileSync(file, 'utf8')) as { mcp: { servers: { name: string }[] }; tools: { root: string } };
  assert.deepEqual(raw.mcp.servers.map((s) => s.name), ['a', 'b']);
  assert.equal(raw.tools.root, '/r');
  assert.deepEqual(added.servers.map((s) => [s.name, s.transport]), [['a', 'stdio'], ['b', 'http']]);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);

  // Now written as [[mcp.servers]]: a remove edits lines again.
  fs.writeFileSync(file, `# mine\n${fs.readFileSync(file, 'utf8')}`);
  const removed = removeMcpServer(file, 'a');
  assert.equal(removed.written.comments, 'kept');
  assert.ok(fs.readFileSync(file, 'utf8').startsWith('# mine\n'));
  assert.deepEqual(removed.servers.map((s) => s.name), ['b']);
});

test('an add to a file with a malformed entry is refused with that entry\'s key, and nothing is written', (t) => {
  const file = path.join(tempDir(t, 'kw-setup-mcp-'), 'config.toml');
  const text = '[[mcp.servers]]\nname = "a"\n';
  fs.writeFileSync(file, text);
  assert.throws(() => addMcpServer(file, { name: 'b', transport: 'stdio', command: 'node' }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'KW_ERR_MCP_CONFIG');
    assert.match(err.message, /config\.toml: mcp\.servers\[0\]\.command: is required, or url/);
    return true;
  });
  assert.equal(fs.readFileSync(file, 'utf8'), text);
});
