/** The process the review crash test kills: `<data-dir> <run-id> <hash> <content-file>` edits and approves the run's review ($KOWALSKI_CRASH_AT picks where it dies). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import { CHILD_LEASE_SECS } from '../pg-store.js';

const [, , dataDir, runId, hash, contentFile] = process.argv;
const here = path.dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
// On Postgres (KOWALSKI_DATABASE_URL): a short lease, so that the restart after the kill waits little for it to lapse.
const postgres = process.env.KOWALSKI_DATABASE_URL !== undefined;
const engine = await createEngine({
  dataDir: dataDir!,
  ...(postgres ? { config: { ...DEFAULT_CONFIG, store: { ...DEFAULT_CONFIG.store, leaseSecs: CHILD_LEASE_SECS } } } : {}),
  extraStepKinds: [{ kind: 'draft', module: path.join(here, '..', 'kinds', `draft${ext}`), usesModel: false, idempotent: true, runsCommand: false }],
});
await engine.reviewEdit(runId!, { hash: hash!, content: fs.readFileSync(contentFile!, 'utf8'), by: 'crash-test' });
process.stdout.write(`EDITED ${await engine.waitForRun(runId!)}\n`);
await engine.close();
