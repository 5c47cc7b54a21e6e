/**
 * Sessions chatting while their engine is SIGKILLed at random moments, life after life,
 * then a clean life to finish: the CI test (test/crash/crash.chat-random.test.ts) and the soak
 * (bench/soak-chat.ts) both run this and check the invariants of chat-support.ts.
 */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeOllama } from '../fake-models.js';
import { CALLS_PER_TURN, ModelLedger, team, teamAnswer } from './chat-ledger.js';
import { budgetDrops, budgetsNow, chatLife, checkChat, writeChatHome } from './chat-support.js';
import type { ChatCheck, Chatting } from './chat-support.js';

export interface KillsOptions {
  sessions: number;
  turns: number;
  /** Lives to kill (a life that finishes before its kill counts as not killed). */
  kills: number;
  /** Each kill lands at a random moment up to this long after the life's first recorded model answer. */
  maxDelayMs: number;
  /** Delay between an answer's streamed pieces, ms (so kills land mid-answer too). */
  paceMs: number;
  /** Called after each life. */
  onLife?(life: { n: number; killed: boolean; ms: number }): void;
}

export interface KillsResult extends ChatCheck {
  lives: number;
  kills: number;
  requests: number;
}

export async function chatUnderKills(options: KillsOptions): Promise<KillsResult> {
  const ledger = new ModelLedger(() => options.paceMs);
  const server = await startFakeOllama(ledger.script);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-chat-kills-'));
  try {
    const h = writeChatHome(dir, server.url, team(CALLS_PER_TURN.team!));
    const what: Chatting = { agent: 'boss', sessions: options.sessions, turns: options.turns, topic: 'team' };
    const problems: string[] = [];
    const live = async (kill: boolean): Promise<boolean> => {
      const before = budgetsNow(h.home);
      const started = Date.now();
      // Each kill lands at a random moment after the life got going (its first answer recorded: a slow start-up would otherwise eat the delay).
      const run = await chatLife(h.home, ledger, what, {
        limitMs: 180_000,
        ...(kill ? { killAfterLine: { line: (l: string) => / model\.finished /.test(l), ms: Math.floor(Math.random() * options.maxDelayMs) } } : {}),
      });
      const killed = run.signal === 'SIGKILL';
      if (!killed && run.code !== 0) problems.push(`life ${ledger.life} exited ${run.code}: ${run.stderr}`);
      problems.push(...budgetDrops(before, budgetsNow(h.home)).map((p) => `life ${ledger.life}: ${p}`));
      options.onLife?.({ n: ledger.life, killed, ms: Date.now() - started });
      return killed;
    };
    let kills = 0;
    for (let i = 0; i < options.kills; i++) if (await live(true)) kills++;
    await live(false);
    const check = await checkChat(h.home, ledger, [server], h.ledgerFile, [what], teamAnswer);
    return { ...check, problems: [...problems, ...check.problems], lives: ledger.life, kills, requests: ledger.asked.length };
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
