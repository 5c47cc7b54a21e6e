import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { editToml } from '../../engine/setup/toml-edit.js';

const FILE = `# kowalski settings
# top comment

[model]
# which model
default = "ollama:qwen2.5:7b"   # trailing comment
tool_calling = 'text' # literal string

[providers.ollama]
host = "http://127.0.0.1:11434"

# the end
`;

test('a changed value keeps its line, its trailing comment and every other line', () => {
  const out = editToml(FILE, [{ table: ['model'], key: 'default', value: 'ollama:llama3.2:3b' }, { table: ['model'], key: 'tool_calling', value: 'auto' }]);
  assert.equal(out, FILE.replace('"ollama:qwen2.5:7b"', '"ollama:llama3.2:3b"').replace("'text'", '"auto"'));
});

test('a new key goes after the last key of its table; a new table at the end; null removes the line', () => {
  const out = editToml(FILE, [
    { table: ['providers', 'ollama'], key: 'host', value: null },
    { table: ['model'], key: 'note', value: 'say "hi"\n' },
    { table: ['vault', 'semantic'], key: 'enabled', value: true },
  ])!;
  assert.ok(out.includes('tool_calling = \'text\' # literal string\nnote = "say \\"hi\\"\\n"\n\n[providers.ollama]\n\n# the end\n\n[vault.semantic]\nenabled = true\n'), out);
  assert.deepEqual(JSON.parse(JSON.stringify(parse(out))), { model: { default: 'ollama:qwen2.5:7b', tool_calling: 'text', note: 'say "hi"\n' }, providers: { ollama: {} }, vault: { semantic: { enabled: true } } });
});

test('an empty file gets the table; CRLF files stay CRLF', () => {
  assert.equal(editToml('', [{ table: ['tools'], key: 'root', value: '~/x' }]), '[tools]\nroot = "~/x"\n');
  assert.equal(editToml('[tools]\r\nroot = "/a" # here\r\n', [{ table: ['tools'], key: 'root', value: '/b' }]), '[tools]\r\nroot = "/b" # here\r\n');
});

test('what it cannot edit on one line it refuses: a multi-line string, a table named twice', () => {
  assert.equal(editToml('[tools]\nroot = """\n/a"""\n', [{ table: ['tools'], key: 'root', value: '/b' }]), null);
  assert.equal(editToml('[tools]\n[tools]\n', [{ table: ['tools'], key: 'root', value: '/b' }]), null);
});

test('an array-of-tables entry is appended after the last one and removed with its keys; comments stay', () => {
  const text = '# top\n[[mcp.servers]]\nname = "a"\ncommand = "x" # mine\n# about b\n[tools]\nroot = "/r"\n';
  const added = editToml(text, [], [{ kind: 'append', table: ['mcp', 'servers'], entry: { name: 'b', command: 'node', args: ['s.js', 'a "q"'] } }]);
  assert.equal(added, '# top\n[[mcp.servers]]\nname = "a"\ncommand = "x" # mine\n\n[[mcp.servers]]\nname = "b"\ncommand = "node"\nargs = ["s.js", "a \\"q\\""]\n# about b\n[tools]\nroot = "/r"\n');
  assert.equal(editToml(added!, [], [{ kind: 'remove', table: ['mcp', 'servers'], index: 1 }]), text);
  assert.equal(editToml(text, [], [{ kind: 'remove', table: ['mcp', 'servers'], index: 0 }]), '# top\n# about b\n[tools]\nroot = "/r"\n');
  // none yet: at the end of the file
  assert.equal(editToml('[tools]\nroot = "/r"\n', [], [{ kind: 'append', table: ['mcp', 'servers'], entry: { name: 'c', url: 'http://h/mcp' } }]),
    '[tools]\nroot = "/r"\n\n[[mcp.servers]]\nname = "c"\nurl = "http://h/mcp"\n');
  // an entry's own sub-table goes with it
  assert.equal(editToml('[[mcp.servers]]\nname = "a"\n[mcp.servers.env]\nK = "v"\n\n[tools]\n', [], [{ kind: 'remove', table: ['mcp', 'servers'], index: 0 }]), '[tools]\n');
});

test('an array-of-tables entry is replaced in its place, its sub-tables with it; numbers and string tables are written inline; the comments after it stay', () => {
  const text = '# top\n[[mcp.servers]]\nname = "a"\ncommand = "x" # mine\n[mcp.servers.env]\nK = "v"\n# about b\n\n[[mcp.servers]]\nname = "b"\nurl = "http://h/mcp"\n';
  const entry = { name: 'a', command: 'node', env: { API_KEY: 'k "1"', 'odd.name': 'v' }, timeout_secs: 2.5 };
  const replaced = editToml(text, [], [{ kind: 'replace', table: ['mcp', 'servers'], index: 0, entry }]);
  assert.equal(replaced, '# top\n[[mcp.servers]]\nname = "a"\ncommand = "node"\nenv = { API_KEY = "k \\"1\\"", "odd.name" = "v" }\ntimeout_secs = 2.5\n# about b\n\n[[mcp.servers]]\nname = "b"\nurl = "http://h/mcp"\n');
  assert.deepEqual(JSON.parse(JSON.stringify((parse(replaced!) as { mcp: { servers: unknown[] } }).mcp.servers)), [entry, { name: 'b', url: 'http://h/mcp' }]);
  assert.equal(editToml(text, [], [{ kind: 'replace', table: ['mcp', 'servers'], index: 1, entry: { name: 'b', url: 'http://h2/mcp', env: {} } }]),
    text.replace('url = "http://h/mcp"', 'url = "http://h2/mcp"\nenv = {}'));
  assert.equal(editToml(text, [], [{ kind: 'replace', table: ['mcp', 'servers'], index: 2, entry: { name: 'c' } }]), null, 'no third entry');
});

test('an array edit it cannot make safely is null', () => {
  assert.equal(editToml('[[mcp.servers]]\nname = "a"\n', [], [{ kind: 'remove', table: ['mcp', 'servers'], index: 1 }]), null);
  assert.equal(editToml('[[ "odd key" ]]\nname = "a"\n', [], [{ kind: 'append', table: ['mcp', 'servers'], entry: { name: 'b', command: 'n' } }]), null);
});

test('a table is dropped with its keys and the sub-tables written with it; comments before it and after its last key stay', () => {
  const text = `# top
[model]
default = "x"

# the mail adapter
[adapters.mail]
type = "email"
address = "a@example.com"

[adapters.mail.imap]
host = "imap.example.com"
password_env = "IMAP_PW"
# a note about what follows

[adapters.hooks]
type = "webhook"
`;
  const out = editToml(text, [], [{ kind: 'drop', table: ['adapters', 'mail'] }]);
  assert.equal(out, `# top
[model]
default = "x"

# the mail adapter
# a note about what follows

[adapters.hooks]
type = "webhook"
`);
  assert.deepEqual(JSON.parse(JSON.stringify(parse(out!))), { model: { default: 'x' }, adapters: { hooks: { type: 'webhook' } } });
  // The last table goes with the blank line before it: an added table comes back out byte for byte.
  const added = editToml(FILE, [{ table: ['adapters', 'orders'], key: 'type', value: 'webhook' }, { table: ['adapters', 'orders'], key: 'reply_timeout_secs', value: 30 }])!;
  assert.ok(added.endsWith('# the end\n\n[adapters.orders]\ntype = "webhook"\nreply_timeout_secs = 30\n'), added);
  assert.equal(editToml(added, [], [{ kind: 'drop', table: ['adapters', 'orders'] }]), FILE);
});

test('a table it cannot drop safely is null: a sub-table written elsewhere, or the table written twice', () => {
  const apart = '[adapters.mail]\ntype = "email"\n[model]\ndefault = "x"\n[adapters.mail.imap]\nhost = "h"\n';
  assert.equal(editToml(apart, [], [{ kind: 'drop', table: ['adapters', 'mail'] }]), null);
  assert.equal(editToml('[a]\nx = 1\n[a]\ny = 2\n', [], [{ kind: 'drop', table: ['a'] }]), null);
});
