import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MODEL_STEP_KINDS, STEP_KINDS } from '../../core/index.js';
import { builtinStepKinds } from '../../steps/registry.js';

test('every step kind of the format is registered with a module that exists', () => {
  const kinds = builtinStepKinds();
  assert.deepEqual([...kinds.keys()].sort(), [...STEP_KINDS].sort());
  for (const [kind, info] of kinds) {
    assert.equal(info.kind, kind);
    assert.ok(path.isAbsolute(info.module), `${kind}: module path is absolute`);
    assert.ok(fs.existsSync(info.module), `${kind}: ${info.module} exists`);
    // Under tsx the sources are used; from dist/ the compiled .js files.
    assert.equal(path.extname(info.module), '.ts');
  }
});

test('the flags the engine relies on: what needs approval, what is not safe to repeat, what needs a model', () => {
  const kinds = builtinStepKinds();
  assert.deepEqual(
    [...kinds.values()].filter((k) => k.runsCommand).map((k) => k.kind).sort(),
    ['apply', 'verify'],
  );
  assert.deepEqual([...kinds.values()].filter((k) => !k.idempotent).map((k) => k.kind), ['apply']);
  assert.deepEqual([...kinds.values()].filter((k) => k.usesModel).map((k) => k.kind).sort(), [...MODEL_STEP_KINDS].sort());
  const modelModules = new Set(MODEL_STEP_KINDS.map((k) => kinds.get(k)?.module));
  assert.equal(modelModules.size, 1, 'one module serves every model kind');
});

test('each call gives a fresh map that callers may extend', () => {
  const a = builtinStepKinds();
  a.set('noop', { kind: 'noop', module: '/x/noop.js', usesModel: false, idempotent: true, runsCommand: false });
  assert.equal(builtinStepKinds().has('noop'), false);
});
