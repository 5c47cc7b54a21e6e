/**
 * The step kinds tests add to the engine's built-in ones (this folder; the ledger, which the
 * crash harness and the soaks use too, in testkit/crash/). From the sources, the built ones
 * when dist/ is current, as testOwnCode's threads load them; from dist/ (a built child such
 * as testkit/pg-node.js), the built ones beside this file.
 */
import { fileURLToPath } from 'node:url';
import type { StepKindInfo } from '../../engine/index.js';
import { moduleFor } from '../dist.js';

const built = import.meta.url.endsWith('.js');

function kindModule(source: string): string {
  return built ? fileURLToPath(new URL(`../${source.replace(/\.ts$/, '.js')}`, import.meta.url)) : moduleFor(`testkit/${source}`);
}

const kind = (name: string, file: string, flags: Partial<StepKindInfo> = {}): StepKindInfo => ({
  kind: name, module: kindModule(file === 'ledger' ? 'crash/ledger-kind.ts' : `kinds/${file}.ts`),
  usesModel: false, idempotent: true, runsCommand: false, ...flags,
});

export const TEST_KINDS: StepKindInfo[] = [kind('noop', 'noop'), kind('ledger', 'ledger'), kind('whoami', 'whoami'), kind('gate', 'gate'), kind('scribe', 'scribe'), kind('draft', 'draft'), kind('deaf', 'deaf')];
