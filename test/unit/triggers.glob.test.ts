/** The watch triggers' glob matcher: what a `globs = [...]` line in horde.md selects, and which folders a watcher may skip. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { compileGlobs, expandBraces, globProblem, MAX_BRACE_EXPANSIONS } from '../../engine/triggers/glob.js';

function check(patterns: string[], yes: string[], no: string[], nocase = false): void {
  const set = compileGlobs(patterns, { nocase });
  for (const p of yes) assert.equal(set.matches(p), true, `${patterns.join(' ')} should match ${p}`);
  for (const p of no) assert.equal(set.matches(p), false, `${patterns.join(' ')} should not match ${p}`);
}

void test('* matches within one folder level only, anchored at the watched folder', () => {
  check(['*.csv'], ['a.csv', 'report 2024.csv', 'csv.csv'], ['sub/a.csv', 'a.csv.bak', 'a.CSV', 'acsv', 'a/b/c.csv']);
  check(['reports/*.xlsx'], ['reports/q1.xlsx'], ['q1.xlsx', 'reports/2024/q1.xlsx', 'other/q1.xlsx']);
});

void test('** spans any number of folders, including none', () => {
  check(['**/*.csv'], ['a.csv', 'x/a.csv', 'x/y/z/a.csv'], ['a.txt', 'x/a.txt']);
  check(['reports/**/*.csv'], ['reports/a.csv', 'reports/2024/a.csv', 'reports/2024/q1/a.csv'], ['a.csv', 'other/reports/a.csv', 'reports/a.txt']);
  check(['a/**/b/*.txt'], ['a/b/x.txt', 'a/1/2/b/x.txt'], ['a/x.txt', 'a/b/c/x.txt']);
});

void test('a trailing ** or / means everything below that folder, not the folder name itself', () => {
  check(['reports/**'], ['reports/a.csv', 'reports/x/y.bin'], ['reports', 'other/a.csv']);
  check(['reports/'], ['reports/a.csv', 'reports/x/y.bin'], ['reports', 'a.csv']);
  check(['**'], ['a', 'x/y/z'], []);
});

void test('? is one character, [..] a set or range, [!..] its complement', () => {
  check(['file?.txt'], ['file1.txt', 'fileA.txt'], ['file.txt', 'file10.txt', 'file/.txt']);
  check(['q[1-4].csv'], ['q1.csv', 'q4.csv'], ['q5.csv', 'q.csv']);
  check(['q[!1-4].csv'], ['q5.csv', 'qx.csv'], ['q1.csv']);
  check(['[]x].txt'], ['].txt', 'x.txt'], ['y.txt']);
  check(['[abc.txt'], ['[abc.txt'], ['a.txt']);
});

void test('{a,b} alternatives expand, nest, and work across folder levels', () => {
  check(['*.{xlsx,csv}'], ['a.xlsx', 'b.csv'], ['c.xls', 'd.txt']);
  check(['{in,out}/{*.csv,deep/**/*.json}'], ['in/a.csv', 'out/deep/x/y.json', 'out/deep/y.json'], ['in/deep/a.csv', 'x/a.csv']);
  check(['{a/b,c}.txt'], ['a/b.txt', 'c.txt'], ['a.txt']);
  check(['{a}.txt', 'x{y'], ['{a}.txt', 'x{y'], ['a.txt']);
  assert.deepEqual(expandBraces('{a,{b,c}}-{1,2}'), ['a-1', 'a-2', 'b-1', 'b-2', 'c-1', 'c-2']);
});

void test('hidden names are matched only by a segment that starts with a dot', () => {
  check(['**/*.csv'], ['a.csv'], ['.git/a.csv', 'x/.cache/a.csv', '.a.csv']);
  check(['*'], ['a'], ['.DS_Store']);
  check(['.config/*.json', '**/.env'], ['.config/a.json', '.env', 'x/.env'], ['config/a.json', '.config/.a.json']);
  check(['\\.hidden'], ['.hidden'], []);
});

void test('backslash escapes a special character', () => {
  check(['what\\?.txt', 'star\\*.md', '\\{a,b\\}'], ['what?.txt', 'star*.md', '{a,b}'], ['whatx.txt', 'starry.md', 'a', 'b']);
});

void test('nocase compares as case-insensitive file systems do', () => {
  check(['*.xlsx'], ['A.XLSX', 'b.xlsx'], ['c.xls'], true);
  check(['*.xlsx'], ['b.xlsx'], ['A.XLSX'], false);
});

void test('mayContain lets a watcher skip folders no pattern can reach', () => {
  const flat = compileGlobs(['*.csv']);
  assert.equal(flat.mayContain(''), true);
  assert.equal(flat.mayContain('sub'), false);
  const deep = compileGlobs(['reports/**/*.csv', 'in/*.xlsx']);
  assert.equal(deep.mayContain('reports'), true);
  assert.equal(deep.mayContain('reports/2024/q1'), true);
  assert.equal(deep.mayContain('in'), true);
  assert.equal(deep.mayContain('in/sub'), false);
  assert.equal(deep.mayContain('other'), false);
  assert.equal(deep.mayContain('reports/.git'), false);
  const all = compileGlobs(['**']);
  assert.equal(all.mayContain('a/b/c'), true);
  assert.equal(all.mayContain('.git'), false);
  assert.equal(all.mayContain('a/.cache/b'), false);
  assert.equal(compileGlobs(['.config/*.json']).mayContain('.config'), true);
});

void test('deeply nested ** patterns stay fast on deep paths', () => {
  const set = compileGlobs(['**/a/**/b/**/c/**/d/**/*.zzz']);
  const deepPath = Array.from({ length: 60 }, (_, i) => `d${i}`).join('/') + '/x.csv';
  const started = performance.now();
  assert.equal(set.matches(deepPath), false);
  assert.ok(performance.now() - started < 500);
});

void test('bad patterns are refused with KW_ERR_TRIGGER_INVALID and a reason', () => {
  assert.match(globProblem('/etc/*.conf') ?? '', /absolute/);
  assert.match(globProblem('C:\\data\\*.csv') ?? '', /absolute/);
  assert.match(globProblem('../secrets/*') ?? '', /climbs out/);
  assert.match(globProblem('{a,..}/x') ?? '', /climbs out/);
  assert.match(globProblem('  ') ?? '', /empty/);
  assert.equal(globProblem('reports/**/*.csv'), undefined);
  const huge = '{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b}';
  assert.match(globProblem(huge) ?? '', new RegExp(`more than ${MAX_BRACE_EXPANSIONS}`));
  assert.throws(() => compileGlobs(['*.csv', '../x']), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_TRIGGER_INVALID' && /climbs out/.test(err.message));
});
