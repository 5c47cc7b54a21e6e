/** Temporary folders that clean up after the test, after what was made in them (see cleanup.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { cleanups } from './cleanup.js';

export function tempDir(t: TestContext, prefix = 'kw-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups(t)(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
