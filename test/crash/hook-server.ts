/**
 * The server the webhook crash test kills: `<data-dir> <hold-us>` starts an engine with
 * the committer's intake hold at `hold-us`, a real API on 127.0.0.1 with its triggers
 * started (as `kowalski serve` does), and prints `LISTENING <port>`.
 */
import type { AddressInfo } from 'node:net';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import { TEST_KINDS } from '../support/engine.js';
import { TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const [, , dataDir, holdUs] = process.argv;
const engine = await createEngine({ ownCode: testOwnCode(), dataDir: dataDir!, extraStepKinds: TEST_KINDS, intakeHoldUs: Number(holdUs) });
const { app } = await buildApi(engine, { token: TEST_TOKEN, port: 0 });
await app.listen({ host: '127.0.0.1', port: 0 });
await engine.triggers.start();
process.stdout.write(`LISTENING ${(app.server.address() as AddressInfo).port}\n`);
