/** "Did you mean …?" for misspelt horde ids: edit distance with swaps, prefixes, nothing for what is far. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closestIds, didYouMean, editDistance } from '../../engine/horde/suggest.js';

const IDS = ['project-check', 'retry-command', 'spreadsheet-analyst', 'spreadsheet-profile', 'url-summarizer'];

test('edit distance counts a swap of neighbours as one edit', () => {
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('abc', 'abc'), 0);
  assert.equal(editDistance('projetc-check', 'project-check'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
});

test('a misspelt id gets the nearest ids; a prefix gets what it starts; nothing far, nothing equal', () => {
  assert.deepEqual(closestIds('projet-check', IDS), ['project-check']);
  assert.deepEqual(closestIds('Retry-Comand', IDS), ['retry-command']);
  assert.deepEqual(closestIds('spreadsheet', IDS), ['spreadsheet-analyst', 'spreadsheet-profile']);
  assert.deepEqual(closestIds('weather', IDS), []);
  assert.deepEqual(closestIds('ab', ['ac', 'zz']), ['ac']);
  assert.deepEqual(closestIds('retry-command', IDS), [], 'an exact id is no suggestion');
  assert.equal(didYouMean('url-sumarizer', IDS), '; did you mean "url-summarizer"?');
  assert.equal(didYouMean('spreadsheet-profil', IDS), '; did you mean "spreadsheet-profile"?');
  assert.equal(didYouMean('nothing-like-it', IDS), '');
});
