import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSqlPlan } from '../../steps/sql-plan.js';

const questions = (md: string): string[] => parseSqlPlan(md).queries.map((q) => q.question);

test('every sql block is taken in order, with the heading above it as its question and the line of its fence', () => {
  const plan = [
    '# Plan', //                                   1
    '', //                                         2
    '## What is the revenue per region?', //       3
    '', //                                         4
    '```sql', //                                   5
    'SELECT region, SUM(amount) AS revenue', //    6
    'FROM sales GROUP BY region;', //              7
    '```', //                                      8
    '', //                                         9
    '### Top customers ###', //                    10
    '~~~SQL', //                                   11
    'SELECT 1', //                                 12
    '~~~', //                                      13
  ].join('\n');
  assert.deepEqual(parseSqlPlan(plan), {
    queries: [
      { question: 'What is the revenue per region?', sql: 'SELECT region, SUM(amount) AS revenue\nFROM sales GROUP BY region', line: 5 },
      { question: 'Top customers', sql: 'SELECT 1', line: 11 },
    ],
    notes: [],
  });
});

test('info strings after sql count; other languages, and sql inside another fence, do not', () => {
  const plan = [
    '## Q', '```sql title="by region"', 'SELECT 1', '```',
    '```python', 'x = 1', '```',
    '````markdown', '```sql', 'SELECT inside_example', '```', '````',
    '```sqlite', 'SELECT no', '```',
    '```', 'SELECT plain', '```',
  ].join('\n');
  const { queries } = parseSqlPlan(plan);
  assert.deepEqual(queries.map((q) => q.sql), ['SELECT 1']);
});

test('with no heading, a line just above ending in ? or : is the question (list and bold markers stripped), else Query N', () => {
  const plan = [
    'Some intro text.',
    '',
    '1. **How many orders were there?**',
    '```sql', 'SELECT COUNT(*) FROM orders', '```',
    '- Revenue by month:',
    '',
    '```sql', 'SELECT 2', '```',
    'Just prose, not a question.',
    '```sql', 'SELECT 3', '```',
  ].join('\n');
  assert.deepEqual(questions(plan), ['How many orders were there?', 'Revenue by month', 'Query 3']);
});

test('a heading wins over a label line for its one block; several blocks under one heading take their own lines, else Heading (2)', () => {
  assert.deepEqual(questions('## Revenue\n\nHere is the query:\n\n```sql\nSELECT 1\n```\n'), ['Revenue']);
  const list = [
    '## Questions',
    '1. Revenue per region?',
    '   ```sql', '   SELECT 1', '   ```',
    '2. Top customers?',
    '   ```sql', '   SELECT 2', '   ```',
  ].join('\n');
  assert.deepEqual(questions(list), ['Revenue per region?', 'Top customers?']);
  assert.deepEqual(questions('## Sales\n```sql\nSELECT 1\n```\n```sql\nSELECT 2\n```\n```sql\nSELECT 3\n```'), ['Sales', 'Sales (2)', 'Sales (3)']);
  // The same question under two headings is told apart too (case-insensitively).
  assert.deepEqual(questions('## Totals\n```sql\nSELECT 1\n```\n## totals\n```sql\nSELECT 2\n```'), ['Totals', 'totals (2)']);
});

test('setext headings count; a # inside a code block is not a heading', () => {
  const plan = [
    'Revenue by region', '=================', '', '```sql', 'SELECT 1', '```',
    '```text', '# not a heading', '```',
    '```sql', 'SELECT 2', '```',
  ].join('\n');
  assert.deepEqual(questions(plan), ['Revenue by region', 'Revenue by region (2)']);
});

test('an indented fence (inside a list item) loses the fence\'s indentation, keeps the SQL\'s own', () => {
  const plan = '1. Orders?\n    ```sql\n    SELECT *\n      FROM orders\n    ```\n';
  assert.deepEqual(parseSqlPlan(plan).queries, [{ question: 'Orders?', sql: 'SELECT *\n  FROM orders', line: 2 }]);
});

test('trailing semicolons and blank lines are trimmed; CRLF plans parse the same', () => {
  const plan = '## A\r\n```sql\r\n\r\nSELECT 1 ;;\r\n\r\n```\r\n';
  assert.deepEqual(parseSqlPlan(plan).queries, [{ question: 'A', sql: 'SELECT 1', line: 2 }]);
});

test('blocks with only whitespace or comments are skipped with a note naming their line', () => {
  const plan = '## A\n```sql\n-- nothing yet\n/* later */\n```\n## B\n```sql\n   \n```\n## C\n```sql\nSELECT 3 -- three\n```';
  const { queries, notes } = parseSqlPlan(plan);
  assert.deepEqual(queries, [{ question: 'C', sql: 'SELECT 3 -- three', line: 11 }]);
  assert.deepEqual(notes, [
    'the sql block at line 2 holds no statement (only whitespace or comments): skipped',
    'the sql block at line 7 holds no statement (only whitespace or comments): skipped',
  ]);
});

test('an unclosed block runs to the end of the file and is taken, with a note', () => {
  const { queries, notes } = parseSqlPlan('## Cut off\n```sql\nSELECT region,\n  SUM(amount');
  assert.deepEqual(queries, [{ question: 'Cut off', sql: 'SELECT region,\n  SUM(amount', line: 2 }]);
  assert.deepEqual(notes, ['the sql block at line 2 is never closed: it was read to the end of the file']);
});

test('a closing fence must be as long as the opening one', () => {
  const plan = '## A\n````sql\nSELECT \'```\' AS ticks\n```\nSELECT 2\n````\n';
  assert.deepEqual(parseSqlPlan(plan).queries.map((q) => q.sql), ["SELECT '```' AS ticks\n```\nSELECT 2"]);
});

test('a plan with no sql block gives no queries', () => {
  assert.deepEqual(parseSqlPlan('# Plan\n\nI could not write a query.\n'), { queries: [], notes: [] });
});
