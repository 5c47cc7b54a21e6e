/** The step kinds tests add to the engine's built-in ones (test/fixtures/kinds/; the ledger, which the crash harness and the soaks use too, in testkit/crash/). */
import type { StepKindInfo } from '../../engine/index.js';

const kind = (name: string, file: string, flags: Partial<StepKindInfo> = {}): StepKindInfo => ({
  kind: name, module: new URL(file === 'ledger' ? '../../testkit/crash/ledger-kind.ts' : `../fixtures/kinds/${file}.ts`, import.meta.url).pathname,
  usesModel: false, idempotent: true, runsCommand: false, ...flags,
});

export const TEST_KINDS: StepKindInfo[] = [kind('noop', 'noop'), kind('ledger', 'ledger'), kind('whoami', 'whoami'), kind('gate', 'gate'), kind('scribe', 'scribe'), kind('draft', 'draft'), kind('deaf', 'deaf')];
