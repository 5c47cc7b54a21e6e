/**
 * Entry types whatever system made the zip, and the archive features a bundle never uses.
 * The external attributes' high 16 bits are a Unix mode on every "version made by" system
 * (a DOS- or macOS-made zip can carry one, and a reader on Unix would honour it): links,
 * FIFOs, devices, sockets and folders under a file's name are refused, naming the entry;
 * regular files from every system are accepted. So are refused an entry on another disk
 * and a ZIP64 extra field in a local header or in the central directory.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { discardBundle, reviewBundle } from '../../bundles/index.js';
import type { StagedBundle } from '../../bundles/index.js';
import { SAMPLE, home, names, refused, sampleEntries } from '../support/bundles.js';
import { attrsOf, extraBlock, rawZip } from '../support/zip-writer.js';
import type { RawEntry } from '../support/zip-writer.js';
import { cleanups } from '../../testkit/cleanup.js';

/** "Version made by" systems (APPNOTE 4.4.2.2), and one no standard assigns. */
const HOSTS: Record<number, string> = { 0: 'MS-DOS/FAT', 3: 'Unix', 7: 'Macintosh', 10: 'Windows NTFS', 11: 'MVS', 14: 'VFAT', 19: 'OS X (Darwin)', 200: 'unassigned' };

const SPECIAL: { kind: string; mode: number; rule: RegExp }[] = [
  { kind: 'a symbolic link', mode: 0o120777, rule: /the entry is a symbolic link; a bundle holds only regular files/ },
  { kind: 'a FIFO', mode: 0o010644, rule: /not a regular file \(Unix mode 10644\)/ },
  { kind: 'a character device', mode: 0o020644, rule: /not a regular file \(Unix mode 20644\)/ },
  { kind: 'a block device', mode: 0o060644, rule: /not a regular file \(Unix mode 60644\)/ },
  { kind: 'a socket', mode: 0o140755, rule: /not a regular file \(Unix mode 140755\)/ },
  { kind: 'an unknown file kind (S_IFMT all ones)', mode: 0o170644, rule: /not a regular file \(Unix mode 170644\)/ },
  { kind: 'a folder under a file\'s name', mode: 0o040755, rule: /marked as a folder but its name does not end in \// },
];

/** The sample with every entry made on `hostOs` with `attrs`, plus `extra`. */
function madeOn(hostOs: number, attrs: number, extra: RawEntry[] = []): Buffer {
  return rawZip(sampleEntries(SAMPLE, extra.map((e) => ({ hostOs, ...e }))).map((e) => ({ hostOs, attrs, ...e })));
}

async function accepted(t: TestContext, bytes: Uint8Array): Promise<StagedBundle> {
  const h = home(t);
  const staged = await reviewBundle(bytes, { dataDir: h.dataDir });
  cleanups(t)(() => discardBundle(staged));
  assert.equal(staged.report.horde.id, 'sample');
  for (const [name, text] of Object.entries(SAMPLE)) {
    const file = path.join(staged.dir, ...name.split('/'));
    assert.ok(fs.lstatSync(file).isFile(), `${name} is staged as a regular file`);
    assert.equal(fs.readFileSync(file, 'utf8'), text);
  }
  return staged;
}

for (const [host, system] of Object.entries(HOSTS).map(([h, s]) => [Number(h), s] as const)) {
  describe(`a zip made on ${system} (host ${host})`, () => {
    for (const { kind, mode, rule } of SPECIAL) {
      test(`${kind} (mode ${mode.toString(8)}) is refused, naming the entry`, async (t) => {
        const bytes = madeOn(host, attrsOf(0o100644), [{ name: 'data/special', data: Buffer.from('/etc/passwd'), method: 0, attrs: attrsOf(mode) }]);
        names(await refused(t, bytes), 'data/special', rule);
      });
    }

    test('the DOS folder attribute (0x10) on a name without a trailing / is refused', async (t) => {
      const bytes = madeOn(host, 0x20, [{ name: 'data/folder', method: 0, attrs: 0x10 }]);
      names(await refused(t, bytes), 'data/folder', /marked as a folder but its name does not end in \//);
    });

    test('a special mode on a folder entry (a name ending in /) is refused too', async (t) => {
      const bytes = madeOn(host, attrsOf(0o100644), [{ name: 'data/', method: 0, attrs: attrsOf(0o120777, 0x10) }]);
      names(await refused(t, bytes), 'data/', /symbolic link/);
    });

    for (const [label, attrs] of [['a Unix regular file 0644', attrsOf(0o100644)], ['a Unix regular file 0755 with the DOS archive bit', attrsOf(0o100755, 0x20)], ['no Unix mode, the DOS archive bit', 0x20], ['no Unix mode, read-only', 0x01], ['no attributes at all', 0]] as const) {
      test(`regular files (${label}) are accepted and staged as regular files`, async (t) => {
        await accepted(t, madeOn(host, attrs));
      });
    }

    test('folder entries (a name ending in /, with a folder mode, the DOS folder bit, or nothing) are accepted and ignored', async (t) => {
      const folders: RawEntry[] = [
        { name: 'agents/', method: 0, attrs: attrsOf(0o040755, 0x10) },
        { name: 'prompts/', method: 0, attrs: 0x10 },
        { name: 'data/', method: 0, attrs: 0 },
      ];
      const staged = await accepted(t, madeOn(host, attrsOf(0o100644), folders));
      assert.equal(fs.existsSync(path.join(staged.dir, 'data')), false, 'an empty folder entry writes nothing');
    });
  });
}

describe('several disks and ZIP64 are refused', () => {
  test('an entry whose "disk number start" is not 0', async (t) => {
    const entries = sampleEntries().map((e) => (e.name === 'prompts/ask.md' ? { ...e, diskStart: 1 } : e));
    names(await refused(t, rawZip(entries)), 'prompts/ask.md', /starts on disk 1; a bundle is one file, never several disks/);
  });

  test('an end record that counts another disk', async (t) => {
    const bytes = rawZip(sampleEntries());
    bytes.writeUInt16LE(1, bytes.length - 22 + 4);
    assert.match((await refused(t, bytes)).message, /bundle refused: it spans several disks/);
  });

  const zip64 = extraBlock(0x0001, Buffer.alloc(16));
  test('a ZIP64 extra field in a local header', async (t) => {
    const entries = sampleEntries().map((e) => (e.name === 'agents/ask.md' ? { ...e, localExtra: zip64 } : e));
    names(await refused(t, rawZip(entries)), 'agents/ask.md', /the local header carries a ZIP64 extra field \(header id 0x0001\)/);
  });

  test('a ZIP64 extra field in the central directory, after another block', async (t) => {
    const extra = Buffer.concat([extraBlock(0x5455, Buffer.alloc(5)), zip64]);
    const entries = sampleEntries().map((e) => (e.name === 'agents/ask.md' ? { ...e, centralExtra: extra } : e));
    names(await refused(t, rawZip(entries)), 'agents/ask.md', /the central directory entry carries a ZIP64 extra field/);
  });

  test('an extra field whose block runs past its end', async (t) => {
    const cut = extraBlock(0x5455, Buffer.alloc(9)).subarray(0, 8);
    const entries = sampleEntries().map((e) => (e.name === 'horde.md' ? { ...e, localExtra: cut } : e));
    names(await refused(t, rawZip(entries)), 'horde.md', /the local header's extra field is malformed/);
  });

  test('a ZIP64 end-of-central-directory locator', async (t) => {
    const bytes = rawZip(sampleEntries());
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    const withLocator = Buffer.concat([bytes.subarray(0, bytes.length - 22), locator, bytes.subarray(bytes.length - 22)]);
    assert.match((await refused(t, withLocator)).message, /bundle refused: it is a ZIP64 archive/);
  });

  test('ordinary extra fields (an extended timestamp, Unix ids) are accepted', async (t) => {
    const time = extraBlock(0x5455, Buffer.from([1, 0, 0, 0, 0]));
    const ids = extraBlock(0x7875, Buffer.from([1, 4, 0xe8, 3, 0, 0, 4, 0xe8, 3, 0, 0]));
    await accepted(t, rawZip(sampleEntries().map((e) => ({ ...e, localExtra: Buffer.concat([time, ids]), centralExtra: time }))));
  });
});
