/** The step kinds tests add to the engine's built-in ones (testkit/kinds/; the ledger, which the crash harness and the soaks use too, in testkit/crash/): built when dist/ is current, as testOwnCode's threads load them. */
import type { StepKindInfo } from '../../engine/index.js';
import { moduleFor } from '../../testkit/dist.js';

const kind = (name: string, file: string, flags: Partial<StepKindInfo> = {}): StepKindInfo => ({
  kind: name, module: moduleFor(file === 'ledger' ? 'testkit/crash/ledger-kind.ts' : `testkit/kinds/${file}.ts`),
  usesModel: false, idempotent: true, runsCommand: false, ...flags,
});

export const TEST_KINDS: StepKindInfo[] = [kind('noop', 'noop'), kind('ledger', 'ledger'), kind('whoami', 'whoami'), kind('gate', 'gate'), kind('scribe', 'scribe'), kind('draft', 'draft'), kind('deaf', 'deaf')];
