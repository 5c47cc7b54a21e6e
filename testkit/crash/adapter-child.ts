/**
 * The process the plugin adapter crash tests kill: `<data-dir>`, as `kowalski serve` runs it
 * (recover, the API on 127.0.0.1 with the token of the data folder, the adapters started),
 * plus the addresses a plugin's fetch may reach from $KOWALSKI_TEST_FETCH_ALLOW (test servers
 * on 127.0.0.1, which `serve` never allows). On stderr: `LISTENING <origin>` once the
 * adapters run, and `RECORD <delivery id> <state>` each time an inbound record's state
 * changes. SIGTERM closes it (exit 0).
 */
import { buildApi, loadOrCreateToken } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';

const [, , dataDir] = process.argv;
const say = (line: string): void => void process.stderr.write(`${line}\n`);
const fetchAllow = process.env.KOWALSKI_TEST_FETCH_ALLOW?.split(',');

const engine = await createEngine({ dataDir: dataDir!, ...(fetchAllow === undefined ? {} : { testOnlyFetchAllow: fetchAllow }) });
engine.on('engine:warning', ({ message }) => say(`warning: ${message}`));
const recovery = await engine.recover();
const { app } = await buildApi(engine, { host: '127.0.0.1', port: 0, recovery, token: loadOrCreateToken(engine.paths.dataDir).token });
await app.listen({ host: '127.0.0.1', port: 0 });

// Every record's state, told when it changes (a record's reply, its failure and each accept are adapter activity).
const told = new Map<number, string>();
const tell = (): void => {
  for (let id = 1; ; id++) {
    const record = engine.adapters.record(id);
    if (record === undefined) return;
    if (told.get(id) === record.state) continue;
    told.set(id, record.state);
    say(`RECORD ${record.deliveryId} ${record.state}`);
  }
};
engine.on('adapters:changed', tell);
await engine.adapters.start();
tell();
const address = app.server.address();
say(`LISTENING http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);

await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
await app.close();
await engine.close();
