/**
 * The process the email crash test kills: `<data-dir>`. It opens the engine and starts its
 * adapters (as `kowalski serve` does), prints `STATE <state>` each time the first inbound
 * record's state changes, and closes once it is `replied` (`DONE`).
 */
import { createEngine } from '../../engine/index.js';

const [, , dataDir] = process.argv;
const say = (line: string): void => void process.stdout.write(`${line}\n`);

const engine = await createEngine({ dataDir: dataDir! });
await engine.adapters.start();
say(`STARTED ${engine.adapters.status('mail').state}`);
let last = '';
for (;;) {
  const state = engine.adapters.record(1)?.state ?? 'none';
  if (state !== last) say(`STATE ${state}`);
  last = state;
  if (state === 'replied') break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await engine.close();
say('DONE');
