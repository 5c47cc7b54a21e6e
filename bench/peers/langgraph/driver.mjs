// LangGraph.js (a StateGraph, SqliteSaver checkpoints in a file) in the peers' shape
// (issue 35): a graph of 6 no-op nodes, one at a time and in Promise.all batches; then
// runs interrupted before node 3, parked by one process and resumed by a new one.
// Not part of kowalski: bench/peers/install.sh installs it. Prints one JSON line.
import crypto from 'node:crypto';
import path from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { STEPS, args, parkPhase, phase, print, resumePhase, versionOf, w1Shapes } from './common.mjs';

const o = args();
const State = Annotation.Root({ n: Annotation({ reducer: (_a, b) => b, default: () => 0 }) });
const graph = () => {
  let g = new StateGraph(State);
  for (let i = 1; i <= STEPS; i += 1) g = g.addNode(`s${i}`, async () => ({}));
  g = g.addEdge(START, 's1');
  for (let i = 1; i < STEPS; i += 1) g = g.addEdge(`s${i}`, `s${i + 1}`);
  return g.addEdge(`s${STEPS}`, END);
};
const saver = SqliteSaver.fromConnString(path.join(o.dir, 'langgraph.db'));
const w1 = graph().compile({ checkpointer: saver });
const park = graph().compile({ checkpointer: saver, interruptBefore: ['s3'] });
const thread = (id) => ({ configurable: { thread_id: id } });

if (o.phase === 'park') {
  print(await parkPhase(async (n) => {
    const ids = Array.from({ length: n }, () => crypto.randomUUID());
    await Promise.all(ids.map((id) => park.invoke({ n: 0 }, thread(id))));
    const states = await Promise.all(ids.map((id) => park.getState(thread(id))));
    return ids.filter((_id, i) => states[i].next[0] === 's3');
  }, o));
} else if (o.phase === 'resume') {
  print(await resumePhase((ids) => Promise.all(ids.map(async (id) => {
    await park.invoke(null, thread(id));
    return (await park.getState(thread(id))).next.length === 0;
  })), o));
} else {
  const shapes = await w1Shapes(async () => {
    await w1.invoke({ n: 0 }, thread(crypto.randomUUID()));
    return true;
  }, o);
  const parked = phase('park', o);
  const resumed = phase('resume', o);
  print({ peer: 'LangGraph.js', version: versionOf('@langchain/langgraph'), store: 'SqliteSaver (better-sqlite3) file', ...shapes, parked: parked.parked, resume: resumed });
}
