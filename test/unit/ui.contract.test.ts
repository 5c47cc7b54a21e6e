/**
 * The app's shapes are contract/'s, which the server's code uses too, so the compiler keeps the
 * two honest. What is left to check here: the value lists the app keeps for itself, the shapes
 * the app still spells on its own (bundles), the shapes routes answer inline, and a server shape not
 * yet taken from contract/. `npm run typecheck` fails when one of these drifts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServerFrame } from '../../api/index.js';
import { CHAT_STATES } from '../../actors/index.js';
import { RUN_STATES } from '../../engine/index.js';
import type { ProbeResult } from '../../agents/index.js';
import type { BundleReport } from '../../bundles/index.js';
import type { Setup, SetupWritten } from '../../engine/index.js';
import { CHAT_STATES as UI_CHAT_STATES, RUN_STATES as UI_RUN_STATES, TOOL_CALLING } from '../../ui/src/types.js';
import type * as Ui from '../../ui/src/types.js';

/** Compiles only when a value of the server's type is accepted where the app expects its own. */
function accepts<Expected>(_value: Expected): void {}

// What the server sends, as the app reads it.
export const serverShapesFitTheApp = [
  (v: ServerFrame) => accepts<Ui.ServerFrame>(v),
  // PUT /api/setup answers the saved setup with how it was written and the model's check (api/routes/setup.ts).
  (v: Setup & { written: SetupWritten; check: ProbeResult | null }) => accepts<Ui.SetupSaved>(v),
  // POST /api/bundles answers the staged report with its review id (api/routes/bundles.ts).
  (v: BundleReport & { reviewId: string; expiresAt: number }) => accepts<Ui.BundleReview>(v),
];

test('the app lists the same chat states as the server', () => {
  assert.deepEqual([...UI_CHAT_STATES].sort(), [...CHAT_STATES].sort());
});

test('the app lists the same run states and tool-calling modes as the server', () => {
  assert.deepEqual([...UI_RUN_STATES].sort(), [...RUN_STATES].sort());
  assert.deepEqual([...TOOL_CALLING], ['auto', 'native', 'text']);
});
