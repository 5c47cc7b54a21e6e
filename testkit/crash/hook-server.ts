/**
 * The server the webhook crash test kills: `<data-dir> <hold-us> <api-token>` starts an engine with
 * the committer's intake hold at `hold-us`, a real API on 127.0.0.1 with its triggers
 * started (as `kowalski serve` does), and prints `LISTENING <port>`.
 */
import type { AddressInfo } from 'node:net';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import { testOwnCode } from '../dist.js';
import { TEST_KINDS } from '../kinds/index.js';

const [, , dataDir, holdUs, token] = process.argv;
const engine = await createEngine({ ownCode: testOwnCode(), dataDir: dataDir!, extraStepKinds: TEST_KINDS, intakeHoldUs: Number(holdUs) });
const { app } = await buildApi(engine, { token: token!, port: 0 });
await app.listen({ host: '127.0.0.1', port: 0 });
await engine.triggers.start();
process.stdout.write(`LISTENING ${(app.server.address() as AddressInfo).port}\n`);
