/**
 * Ask the assistant one question and print its answer as it streams.
 *
 *   node --conditions=kowalski-source --import tsx examples/chat.ts "What is a horde?"
 *
 * (examples/README.md: against Ollama, and from the built package.)
 */
import { openKowalski } from 'kowalski';

const question = process.argv.slice(2).join(' ') || 'In one sentence: what can you do for me?';
const dataDir = process.env.KOWALSKI_HOME ?? undefined;
const kowalski = await openKowalski(dataDir === undefined ? {} : { dataDir });
try {
  let lastNode = '';
  const answer = await kowalski.chat('assistant', question, {
    onToken: ({ node, agent, text }) => {
      // `r` is the assistant; a delegated agent's text is shown under its name.
      if (node !== lastNode) process.stdout.write(node === 'r' ? (lastNode === '' ? '' : '\n') : `\n[${agent}] `);
      lastNode = node;
      process.stdout.write(text);
    },
  });
  process.stdout.write('\n');
  for (const item of answer.toolCalls) {
    process.stderr.write(item.kind === 'tool' ? `  tool ${item.name}: ${item.status}\n` : `  delegated to ${item.agent}: ${item.status}\n`);
  }
  process.stderr.write(`${answer.stop}: ${answer.usage.calls} model calls, ${answer.usage.inputTokens} + ${answer.usage.outputTokens} tokens; session ${answer.sessionId}, trace ${answer.traceId ?? '-'}\n`);
  process.exitCode = answer.stop === 'done' ? 0 : answer.stop === 'budget_exhausted' ? 3 : 1;
} finally {
  await kowalski.close();
}
