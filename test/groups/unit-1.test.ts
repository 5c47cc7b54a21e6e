/** One group of test files, run in this one process (test/support/test-groups.ts). */
import { runGroup } from '../support/test-groups.js';

await runGroup(import.meta.url);
