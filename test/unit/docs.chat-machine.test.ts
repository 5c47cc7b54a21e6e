/** docs/chat-machine.md is generated from the chat machine; this test fails when they differ (UPDATE_DOCS=1 rewrites it). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { chatMachine } from '../../actors/index.js';
import { machineMarkdown } from '../support/machine-doc.js';

const DOC = path.join(import.meta.dirname, '..', '..', 'docs', 'chat-machine.md');
const INTRO = [
  'Generated from `actors/chat.machine.ts` by `test/unit/docs.chat-machine.test.ts` (`UPDATE_DOCS=1 node --import tsx --test test/unit/docs.chat-machine.test.ts` rewrites it).',
  '',
  'Every chat session is this machine (docs/chat.md tells the whole story). Each event is appended to the session\'s log before it takes effect; folding the log through the machine gives the session, and for the turn under way every model call and tool call already made, which a resumed turn takes from there instead of making again. A model call past the turn\'s budget cannot be recorded: the guard of `model.started` refuses it.',
].join('\n');

test('docs/chat-machine.md is the chat machine as it is', () => {
  const generated = machineMarkdown(chatMachine, 'The chat session machine', INTRO);
  if (process.env.UPDATE_DOCS === '1') fs.writeFileSync(DOC, generated);
  assert.equal(fs.readFileSync(DOC, 'utf8'), generated, 'docs/chat-machine.md is stale: run this test with UPDATE_DOCS=1');
});
