/** The vault search's pure parts: titles and chunks of a note, query words, reciprocal rank fusion, the `[vault.semantic]` config. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunksOf, fuseRanks, queryTerms, titleOf } from '../../engine/vault/search/index.js';
import { ftsQuery } from '../../engine/store/sql/fts-query.js';
import { parseConfig } from '../../engine/index.js';

test('a title is the first # heading (not one inside a code fence), else the file name', () => {
  assert.equal(titleOf('```sh\n# not a title\n```\n\n## Sub\n\n# Real title #\n', 'a/b.md'), 'Real title');
  assert.equal(titleOf('no heading here', 'notes/2026-01-02.md'), '2026-01-02');
  assert.equal(titleOf('#hashtag is not a heading', 'x.MD'), 'x');
});

test('chunks follow the headings with their path, skip heading-only sections and fences, and are bounded', () => {
  const text = '# Plans\n\n## Q3\n\nShip it.\n\n```md\n# inside a fence\n```\n\n### Risks\n\nRain.\n\n## Q4\n\nRest.\n';
  assert.deepEqual(chunksOf(text).map((c) => [c.heading, c.text.split('\n')[0]]), [
    ['Plans > Q3', '## Q3'],
    ['Plans > Q3 > Risks', '### Risks'],
    ['Plans > Q4', '## Q4'],
  ]);
  assert.match(chunksOf(text)[0]!.text, /# inside a fence/);
  const long = `# Long\n\n${'word '.repeat(300)}\n\n${'more '.repeat(300)}\n\n${'x'.repeat(2500)}`;
  const pieces = chunksOf(long, 1000);
  assert.ok(pieces.length >= 4, String(pieces.length));
  assert.ok(pieces.every((c) => c.text.length <= 1000 && c.heading === 'Long'));
  assert.deepEqual(chunksOf('before any heading\n\n# H\n\nafter').map((c) => c.heading), ['', 'H']);
});

test('a query becomes quoted words: nothing the user types is FTS5 syntax', () => {
  assert.deepEqual(queryTerms('"acme" AND (invoices) title:q3 c++ -x'), ['acme', 'AND', 'invoices', 'title', 'q3', 'c', 'x']);
  assert.equal(ftsQuery(['acme', 'AND'], 'AND'), '"acme" AND "AND"');
  assert.deepEqual(queryTerms('?! *'), []);
  assert.equal(queryTerms('w '.repeat(100)).length, 32);
});

test('reciprocal rank fusion: an item in both lists beats the head of one; k = 60', () => {
  const fused = fuseRanks({ keyword: ['a', 'b', 'c'], semantic: ['d', 'c', 'a'] }, (x) => x);
  assert.deepEqual(fused.map((f) => f.key), ['a', 'c', 'd', 'b']);
  assert.equal(fused[0]!.score, 1 / 61 + 1 / 63);
  assert.deepEqual(Object.keys(fused[0]!.from).sort(), ['keyword', 'semantic']);
  assert.deepEqual(fuseRanks({ one: ['a', 'a'] }, (x) => x)[0]!.score, 1 / 61, 'an item counts once per list, at its best rank');
});

test('[vault.semantic]: off by default; a model must be provider:model of a provider with embeddings', () => {
  assert.deepEqual(parseConfig('', 'c.toml').vault, { maxNoteBytes: 1024 * 1024, semantic: { enabled: false, model: 'ollama:nomic-embed-text' } });
  assert.deepEqual(parseConfig('[vault.semantic]\nenabled = true\nmodel = "gemini:gemini-embedding-001"\n', 'c.toml').vault.semantic, { enabled: true, model: 'gemini:gemini-embedding-001' });
  assert.throws(() => parseConfig('[vault.semantic]\nenabled = "yes"\n', 'c.toml'), { code: 'KW_ERR_CONFIG_INVALID', message: /vault\.semantic\.enabled: must be true or false/ });
  assert.throws(() => parseConfig('[vault.semantic]\nmodel = "nomic"\n', 'c.toml'), { code: 'KW_ERR_CONFIG_INVALID', message: /vault\.semantic\.model: "nomic" is not a model/ });
  assert.throws(() => parseConfig('[vault.semantic]\nmodel = "anthropic:claude"\n', 'c.toml'), { code: 'KW_ERR_CONFIG_INVALID', message: /anthropic has no embeddings/ });
});
