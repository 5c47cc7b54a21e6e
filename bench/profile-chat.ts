/**
 * `node --cpu-prof --cpu-prof-dir=DIR dist/bench/profile-chat.js [--sync=full|normal]
 * [--turns=N]`: the chat workload's model calls alone (`chatCallsOnce`: N one-call turns
 * beside N bare calls, then N/10 turns of 10 tool calls beside the bare loop), for a CPU
 * profile of the main thread; `profile-summary.js DIR/*.cpuprofile --steps=<turns>`
 * then sums its self time per function and per file.
 */
import { numberOption, option } from './args.js';
import { chatCallsOnce } from './chat.js';
import type { Sync } from './setup.js';

const synchronous = option('sync', 'normal') as Sync;
const turns = numberOption('turns', 300);
const s = await chatCallsOnce(synchronous, turns);
process.stdout.write(
  `chat ${synchronous}, ${turns} turns: bare call ${s.floor.toFixed(0)} µs, one-call turn ${s.turn.toFixed(0)} µs (${s.turnEvents} events); ` +
    `tool loop bare ${s.loopFloor.toFixed(0)} µs/call, as a chat turn ${s.toolTurn.toFixed(0)} µs/call (${s.toolTurnEvents} events)\n`,
);
