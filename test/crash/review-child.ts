/** The process the review crash test kills: `<data-dir> <run-id> <hash> <content-file>` edits and approves the run's review ($KOWALSKI_CRASH_AT picks where it dies). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../engine/index.js';

const [, , dataDir, runId, hash, contentFile] = process.argv;
const here = path.dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const engine = await createEngine({
  dataDir: dataDir!,
  extraStepKinds: [{ kind: 'draft', module: path.join(here, '..', 'fixtures', 'kinds', `draft${ext}`), usesModel: false, idempotent: true, runsCommand: false }],
});
await engine.reviewEdit(runId!, { hash: hash!, content: fs.readFileSync(contentFile!, 'utf8'), by: 'crash-test' });
process.stdout.write(`EDITED ${await engine.waitForRun(runId!)}\n`);
await engine.close();
