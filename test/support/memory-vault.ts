/**
 * A small vault for the memory tests until the real one (engine/vault/vault-service.ts) is
 * wired: real files under `<home>/vault/`, every write kept in `writes` like the audit
 * table (one per call key), and a word-count search over the notes under a folder. Its
 * search can be made to fail (`failSearch`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MemoryVault } from '../../engine/index.js';
import type { NoteWrite, SearchAnswer, WriteOrigin } from '../../engine/vault/types.js';

export interface TestVault extends MemoryVault {
  dir: string;
  writes: Array<NoteWrite & { callKey: string | null }>;
  failSearch: boolean;
  searches: string[];
}

export function testVault(home: string): TestVault {
  const dir = path.join(home, 'vault');
  const writes: TestVault['writes'] = [];
  const file = (rel: string): string => {
    if (path.isAbsolute(rel) || rel.split('/').includes('..')) throw new Error(`test vault: refused path ${rel}`);
    return path.join(dir, ...rel.split('/'));
  };
  const write = (op: 'create' | 'append', rel: string, content: string, origin: WriteOrigin): NoteWrite => {
    const again = writes.find((w) => origin.callKey !== null && w.callKey === origin.callKey);
    if (again !== undefined) return again;
    const f = file(rel);
    const before = fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null;
    if (op === 'create' && before !== null) throw Object.assign(new Error(`${rel} exists`), { code: 'KW_ERR_TOOL_FAILED' });
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, (before ?? '') + content);
    const w = {
      writeId: writes.length + 1, at: Date.now(), op, path: rel, bytesBefore: before?.length ?? 0, bytesAfter: (before ?? '').length + content.length, content,
      sha256Before: null, sha256After: null, sessionId: origin.sessionId, agent: origin.agent, traceId: origin.traceId, by: origin.by,
      state: 'done' as const, error: null, reverts: null, revertedBy: null, callKey: origin.callKey,
    };
    writes.push(w);
    return w;
  };
  const vault: TestVault = {
    dir, writes, failSearch: false, searches: [],
    create: (rel, content, origin) => Promise.resolve(write('create', rel, content, origin)),
    append: (rel, content, origin) => Promise.resolve(write('append', rel, content, origin)),
    exists: (rel) => Promise.resolve(fs.existsSync(file(rel))),
    search(query, options = {}): Promise<SearchAnswer> {
      vault.searches.push(query);
      if (vault.failSearch) return Promise.reject(Object.assign(new Error('test vault: the index is down'), { code: 'KW_ERR_TOOL_FAILED' }));
      const under = options.under ?? '';
      const root = file(under.replace(/\/$/, '') || '.');
      const words = (query.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
      const notes = fs.existsSync(root) ? fs.readdirSync(root).filter((n) => n.endsWith('.md')) : [];
      const hits = notes.map((n) => {
        const text = fs.readFileSync(path.join(root, n), 'utf8');
        const score = words.filter((w) => text.toLowerCase().includes(w)).length;
        const line = text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#')) ?? '';
        return { path: `${under}${n}`, title: text.split('\n')[0]!.replace(/^# /, ''), snippet: line, score, found: ['keyword' as const] };
      }).filter((h) => h.score > 0).sort((a, b) => b.score - a.score);
      return Promise.resolve({ query, mode: 'keyword', hits: hits.slice(0, options.limit ?? 10) });
    },
  };
  return vault;
}
