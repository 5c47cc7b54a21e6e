/**
 * kowalski-plugin.toml: each rule, errors naming file, key and line, unknown keys as warnings, the kowalski range,
 * the permissions' hash; input schemas compiled at the check ($ref loops, chains, nesting), a * in a granted path.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createToolRegistry } from '../../agents/index.js';
import type { JsonSchemaObject } from '../../agents/index.js';
import { parseManifest, permissionsHash, permissionsInWords } from '../../engine/index.js';

const ROOT = '/plugins/local/hello';
const FILE = `${ROOT}/kowalski-plugin.toml`;

const GOOD = `manifest_version = 1
name = "hello"
version = "1.2.0"
description = "Says hello"
author = "Ann"
license = "MIT"
kowalski = ">=0.1.0 <1"

[permissions]
fs.read = ["~/Documents", "/srv/data"]
net = ["api.example.com"]
env = ["HELLO_TOKEN"]

[[tools]]
name = "greet"
description = "Greets someone"
entry = "lib/greet.js"
export = "greet"
input = { type = "object", properties = { who = { type = "string" } }, required = ["who"] }
`;

const parseIt = (text: string, version = '0.1.0') => parseManifest(text, FILE, ROOT, version);

/** The manifest with `from` replaced by `to`. */
const edit = (from: string, to: string): string => {
  assert.ok(GOOD.includes(from), `the fixture holds ${from}`);
  return GOOD.replace(from, to);
};

test('a good manifest is read whole: ~/ expanded, tool entry kept relative', () => {
  const { manifest, warnings } = parseIt(GOOD);
  assert.deepEqual(warnings, []);
  assert.equal(manifest.name, 'hello');
  assert.equal(manifest.version, '1.2.0');
  assert.deepEqual(manifest.permissions, {
    fsRead: [path.join(os.homedir(), 'Documents'), '/srv/data'], fsWrite: [], net: ['api.example.com'], env: ['HELLO_TOKEN'], exec: false,
  });
  assert.deepEqual(manifest.tools.map((t) => [t.name, t.entry, t.export]), [['greet', 'lib/greet.js', 'greet']]);
  assert.deepEqual(manifest.adapters, []);
});

const RULES: [string, string, string, RegExp][] = [
  ['manifest_version other than 1', 'manifest_version = 1', 'manifest_version = 2', /:1: manifest_version: must be 1, not 2/],
  ['a name with capitals', 'name = "hello"', 'name = "Hello"', /:2: name: must be lowercase/],
  ['a version that is not semver', 'version = "1.2.0"', 'version = "1.2"', /:3: version: must be a semver version/],
  ['a missing description', 'description = "Says hello"\n', '', /description: is missing/],
  ['a missing author', 'author = "Ann"\n', '', /author: is missing/],
  ['an empty license', 'license = "MIT"', 'license = ""', /:6: license: must be a non-empty string/],
  ['a kowalski range that is not one', 'kowalski = ">=0.1.0 <1"', 'kowalski = "soon"', /:7: kowalski: must be a semver range/],
  ['a relative fs.read path', '"/srv/data"', '"data"', /:10: permissions\.fs\.read: "data" must be an absolute path or start with ~\//],
  ['a * in an fs.read path', '"/srv/data"', '"/srv/data/*.txt"', /:10: permissions\.fs\.read: "\/srv\/data\/\*\.txt" holds a \*: a granted path is a file or a folder .*not a pattern/],
  ['a * in an fs.write path', 'net = [', 'fs.write = ["~/out/*"]\nnet = [', /:11: permissions\.fs\.write: "~\/out\/\*" holds a \*/],
  ['a net entry with a scheme', '"api.example.com"', '"https://api.example.com/x"', /:11: permissions\.net: .* must be a host name/],
  ['an env entry that is not a name', '"HELLO_TOKEN"', '"HELLO-TOKEN"', /:12: permissions\.env: .* is not an environment variable name/],
  ['exec that is not a boolean', 'env = ["HELLO_TOKEN"]', 'env = ["HELLO_TOKEN"]\nexec = "yes"', /:13: permissions\.exec: must be true or false/],
  ['a tool name with a hyphen', 'name = "greet"', 'name = "greet-all"', /:15: tools\[0\]\.name: must be lowercase letters, digits and _/],
  ['a tool entry outside the folder', 'entry = "lib/greet.js"', 'entry = "../other/greet.js"', /:17: tools\[0\]\.entry: .* inside it/],
  ['an absolute tool entry', 'entry = "lib/greet.js"', 'entry = "/etc/greet.js"', /:17: tools\[0\]\.entry: .* relative/],
  ['a tool entry that is not JavaScript', 'entry = "lib/greet.js"', 'entry = "lib/greet.ts"', /tools\[0\]\.entry: .* must be a JavaScript module/],
  ['an export that is not a name', 'export = "greet"', 'export = "greet-me"', /:18: tools\[0\]\.export: .* is not a JavaScript export name/],
  ['an input schema that is not JSON Schema', 'properties = { who = { type = "string" } }', 'properties = { who = { type = "strang" } }', /:19: tools\[0\]\.input: is not a valid JSON schema/],
  ['an input schema of a string', 'input = { type = "object",', 'input = { type = "string",', /tools\[0\]\.input: must describe an object of arguments/],
  ['tools written as a table', '[[tools]]', '[tools]', /tools: must be written as \[\[tools\]\] tables/],
];

for (const [what, from, to, message] of RULES) {
  test(`refused: ${what} (KW_ERR_PLUGIN_MANIFEST naming the file, key and line)`, () => {
    assert.throws(() => parseIt(edit(from, to)), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'KW_ERR_PLUGIN_MANIFEST');
      assert.match(err.message, message);
      assert.ok(err.message.startsWith(FILE), err.message);
      return true;
    });
  });
}

/** GOOD with the tool's input replaced. */
const withInput = (input: string): string => edit('input = { type = "object", properties = { who = { type = "string" } }, required = ["who"] }', `input = ${input}`);

const SCHEMAS: [string, string, RegExp][] = [
  ['a $ref to itself', '{ type = "object", properties = { a = { "$ref" = "#/properties/a" } } }',
    /tools\[0\]\.input: has a \$ref loop that never reaches a schema \(at #\/properties\/a\): #\/properties\/a → #\/properties\/a \(tool greet of plugin hello\)/],
  ['two $defs pointing at each other', '{ type = "object", properties = { a = { "$ref" = "#/$defs/x" } }, "$defs" = { x = { "$ref" = "#/$defs/y" }, y = { "$ref" = "#/$defs/x" } } }',
    /has a \$ref loop that never reaches a schema \(at #\/properties\/a\): #\/\$defs\/x → #\/\$defs\/y → #\/\$defs\/x \(tool greet of plugin hello\)/],
  ['a $ref to nothing', '{ type = "object", properties = { a = { "$ref" = "#/$defs/nope" } } }', /has "\$ref": "#\/\$defs\/nope" \(at #\/properties\/a\), which points at nothing/],
  ['a $ref to another document', '{ type = "object", properties = { a = { "$ref" = "https://example.com/s.json" } } }', /only "#" and "#\/…" pointers into the schema itself are followed/],
  ['an $id', '{ type = "object", properties = { a = { "$id" = "#a", type = "string" } } }', /uses \$id \(at #\/properties\/a\), which a plugin's input schema may not/],
];

for (const [what, input, message] of SCHEMAS) {
  test(`refused at the check: an input schema with ${what}, naming the tool and the plugin`, () => {
    assert.throws(() => parseIt(withInput(input)), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'KW_ERR_PLUGIN_MANIFEST');
      assert.match(err.message, message);
      assert.match(err.message, /kowalski-plugin\.toml:19: tools\[0\]\.input: /);
      return true;
    });
  });
}

test('a long $ref chain and a deep nesting are refused; recursion through a schema (a tree) is fine', () => {
  const defs = Array.from({ length: 20 }, (_, i) => `d${i} = { "$ref" = "#/$defs/d${i + 1}" }`).join(', ');
  assert.throws(() => parseIt(withInput(`{ type = "object", properties = { a = { "$ref" = "#/$defs/d0" } }, "$defs" = { ${defs}, d20 = { type = "string" } } }`)),
    { code: 'KW_ERR_PLUGIN_MANIFEST', message: /has a chain of more than 16 \$refs \(at #\/properties\/a\): #\/\$defs\/d0 → #\/\$defs\/d1/ });
  const deep = `${'{ type = "object", properties = { a = '.repeat(20)}{ type = "string" }${' } }'.repeat(20)}`;
  assert.throws(() => parseIt(withInput(deep)), { code: 'KW_ERR_PLUGIN_MANIFEST', message: /input: nests deeper than 32 levels/ });
  const tree = '{ type = "object", properties = { name = { type = "string" }, children = { type = "array", items = { "$ref" = "#" } } } }';
  assert.equal(parseIt(withInput(tree)).manifest.tools[0]?.name, 'greet');
  const viaDefs = '{ type = "object", properties = { a = { "$ref" = "#/$defs/node" } }, "$defs" = { node = { type = "object", properties = { next = { "$ref" = "#/$defs/node" } } } } }';
  assert.equal(parseIt(withInput(viaDefs)).manifest.tools.length, 1);
});

test('a schema the check passes compiles in the tool registry: its calls are checked, not KW_ERR_INTERNAL', async () => {
  const tree = '{ type = "object", properties = { name = { type = "string" }, children = { type = "array", items = { "$ref" = "#" } } }, additionalProperties = false }';
  const def = parseIt(withInput(tree)).manifest.tools[0]!;
  const registry = createToolRegistry({ builtins: [{ spec: { name: 'hello__greet', description: 'x', inputSchema: def.input as JsonSchemaObject }, call: async () => ({ content: 'ok' }) }] });
  assert.equal((await registry.call('hello__greet', { name: 'a', children: [{ name: 'b', children: [] }] }, new AbortController().signal)).content, 'ok');
  await assert.rejects(registry.call('hello__greet', { name: 'a', children: [{ nope: 1 }] }, new AbortController().signal), { code: 'KW_ERR_TOOL_ARGS' });
});

test('every problem is listed at once, each on its line', () => {
  const text = edit('name = "hello"', 'name = "Hello"').replace('version = "1.2.0"', 'version = "one"');
  assert.throws(() => parseIt(text), (err: Error) => {
    assert.match(err.message, /:2: name:/);
    assert.match(err.message, /:3: version:/);
    return true;
  });
});

test('a tool declared twice, and a name too long for providers, are refused', () => {
  const twice = `${GOOD}\n[[tools]]\nname = "greet"\ndescription = "again"\nentry = "a.js"\nexport = "a"\ninput = { type = "object" }\n`;
  assert.throws(() => parseIt(twice), { code: 'KW_ERR_PLUGIN_MANIFEST', message: /:22: tools\[1\]\.name: "greet" is declared twice/ });
  const long = edit('name = "greet"', `name = "${'g'.repeat(60)}"`);
  assert.throws(() => parseIt(long), { code: 'KW_ERR_PLUGIN_MANIFEST', message: /longer than 64 characters/ });
});

test('TOML that does not parse names the line and column', () => {
  assert.throws(() => parseIt(edit('license = "MIT"', 'license = "MIT')), { code: 'KW_ERR_PLUGIN_MANIFEST', message: /kowalski-plugin\.toml:6: TOML does not parse/ });
});

test('unknown keys are warnings naming the key and line, not errors', () => {
  const text = edit('license = "MIT"', 'license = "MIT"\nhomepage = "https://x"').replace('net = [', 'sockets = true\nnet = [');
  const { warnings } = parseIt(text);
  assert.deepEqual(warnings, [
    `${FILE}:7: homepage: is not a manifest key (ignored)`,
    `${FILE}:12: permissions.sockets: is not a manifest key (ignored)`,
  ]);
});

test('a kowalski range that excludes this version is refused with KW_ERR_PLUGIN_INCOMPATIBLE', () => {
  assert.throws(() => parseIt(edit('kowalski = ">=0.1.0 <1"', 'kowalski = ">=2.0.0"')),
    { code: 'KW_ERR_PLUGIN_INCOMPATIBLE', message: /:7: kowalski: hello 1\.2\.0 works with kowalski >=2\.0\.0, and this is kowalski 0\.1\.0: refused/ });
  assert.doesNotThrow(() => parseIt(GOOD, '0.9.3'));
  assert.throws(() => parseIt(GOOD, '1.0.0'), { code: 'KW_ERR_PLUGIN_INCOMPATIBLE' });
});

test('[[adapters]] are recorded', () => {
  const text = `${GOOD}\n[[adapters]]\nname = "matrix"\ndescription = "Matrix rooms"\nentry = "adapter.js"\nexport = "matrix"\n`;
  assert.deepEqual(parseIt(text).manifest.adapters, [{ name: 'matrix', description: 'Matrix rooms', entry: 'adapter.js', export: 'matrix' }]);
});

test('the permissions hash ignores order and duplicates and changes with any permission', () => {
  const base = parseIt(GOOD).manifest.permissions;
  const same = { ...base, fsRead: [...base.fsRead].reverse().concat(base.fsRead[0]!) };
  assert.equal(permissionsHash(same), permissionsHash(base));
  assert.notEqual(permissionsHash({ ...base, exec: true }), permissionsHash(base));
  assert.notEqual(permissionsHash({ ...base, net: ['api.example.org'] }), permissionsHash(base));
  assert.deepEqual(new Set(permissionsInWords(base, os.homedir())), new Set([
    'read files in ~/Documents', 'read files in /srv/data', "reach api.example.com (through kowalski's fetch)", 'read the environment variable HELLO_TOKEN',
  ]));
  assert.deepEqual(permissionsInWords({ fsRead: [], fsWrite: [], net: [], env: [], exec: false }), ['nothing beyond its own folder']);
});
