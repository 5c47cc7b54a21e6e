import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MISSING_SECTION, cleanAnswer, shapeOutput } from '../../steps/normalize.js';

test('reasoning blocks and a fence around the whole answer are removed', () => {
  assert.equal(cleanAnswer('<think>hmm, the user wants…</think>\n# Title\n\nBody'), '# Title\n\nBody');
  assert.equal(cleanAnswer('```markdown\n# Title\n\nBody\n```'), '# Title\n\nBody');
  // A fence that is only part of the answer stays.
  assert.equal(cleanAnswer('Intro\n\n```sql\nSELECT 1\n```'), 'Intro\n\n```sql\nSELECT 1\n```');
});

test('with no normalize keys the answer is kept as written; an empty one is an error', () => {
  assert.deepEqual(shapeOutput('# A\n\ntext', undefined, 'Draft'), { markdown: '# A\n\ntext\n', fallback: false, missing: [] });
  assert.throws(() => shapeOutput('  \n', undefined, 'Draft'), { code: 'KW_ERR_MODEL_BAD_RESPONSE', message: /empty answer/ });
  assert.throws(() => shapeOutput('<tool_call>{"name":"x"}</tool_call>', undefined, 'Draft'), { code: 'KW_ERR_MODEL_BAD_RESPONSE', message: /tool call instead of an answer/ });
});

test('the title is set and the named sections come in order, missing ones added and reported', () => {
  const answer = '# Whatever\n\nPreamble.\n\n## risks:\n\nR1\n\n## Extra\n\nE\n\n## 1. Summary\n\nS1\n\n```\n## not a heading\n```';
  const shaped = shapeOutput(answer, { docTitle: 'Weekly report', sections: ['Summary', 'Risks', 'Next steps'] }, 'Draft');
  assert.deepEqual(shaped.missing, ['Next steps']);
  assert.equal(shaped.fallback, false);
  assert.equal(shaped.markdown, [
    '# Weekly report', '', 'Preamble.', '',
    '## 1. Summary', '', 'S1', '', '```', '## not a heading', '```', '',
    '## risks:', '', 'R1', '',
    '## Next steps', '', MISSING_SECTION, '',
    '## Extra', '', 'E', '',
  ].join('\n'));
});

test('an empty or unusable answer becomes the fallback document when normalize keys are given', () => {
  const shaped = shapeOutput('<think>…</think>', { docTitle: 'Answer', fallback: 'No answer this time.', fallbackSections: ['Findings', 'Sources'] }, 'Draft');
  assert.equal(shaped.fallback, true);
  assert.equal(shaped.markdown, `# Answer\n\nNo answer this time.\n\n## Findings\n\n${MISSING_SECTION}\n\n## Sources\n\n${MISSING_SECTION}\n`);
  assert.match(shapeOutput('', { sections: ['A'] }, 'Draft step').markdown, /^# Draft step\n\nThe model returned no usable answer/);
});
