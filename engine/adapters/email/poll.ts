/**
 * One poll of the mailbox: each unseen mail is parsed and either handed to the host
 * (recorded and answered; marked seen only after the answer is sent) or, when it must
 * not be answered (filters.ts), marked seen at once so it is not read again at every poll.
 * A mail the host already answered but that is still unseen (the mark after the send
 * failed) is marked seen now, never answered again.
 */
import type * as Mailparser from 'mailparser';
import type { AdapterHost } from '../types.js';
import { takeMail } from './inbound.js';
import type { MailPlace, Taken } from './inbound.js';
import { fetchMail, markSeen, unseenUids, withMailbox } from './mailbox.js';
import type { ImapModule } from './mailbox.js';
import type { EmailSettings } from './settings.js';
import { messageOf } from '../../../core/index.js';

/** Most mails read in one poll (the rest wait for the next), so a full mailbox is worked through in bounded steps. */
export const MAX_MAILS_PER_POLL = 25;

export type MailparserModule = typeof Mailparser;

/**
 * What the polls of one adapter remember: the UIDs handed to the host and still unseen (being
 * answered, or given up by the host), not read again while they stay so — else 25 mails in
 * progress would hide every newer one. Forgotten at a restart or when UIDVALIDITY changes;
 * the host's record then answers a re-read mail as a duplicate.
 */
export interface PollMemory {
  uidValidity: string | null;
  handedOver: Set<number>;
}

export interface PollDeps {
  imap: ImapModule;
  mailparser: MailparserModule;
  settings: EmailSettings;
  host: Pick<AdapterHost, 'accept' | 'activity' | 'failed'>;
  memory: PollMemory;
}

export function pollMemory(): PollMemory {
  return { uidValidity: null, handedOver: new Set() };
}

/**
 * What to do with one fetched mail: hand it to the host (`keep`: it stays unseen until answered),
 * or mark it seen (never answered; or a duplicate already replied to). A mail that cannot be
 * parsed or that the host refuses is reported and kept unseen for a person — it is not read
 * again until a restart, and never blocks the mails after it.
 */
async function decide(deps: PollDeps, source: Buffer, place: MailPlace): Promise<'keep' | 'mark-seen'> {
  let taken: Taken | undefined;
  try {
    const parsed = await deps.mailparser.simpleParser(source, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
    taken = takeMail(parsed, source, place, deps.settings);
    if (taken.kind === 'ignore') return 'mark-seen';
    const { status, record } = deps.host.accept(taken.message);
    return status === 'duplicate' && record.state === 'replied' ? 'mark-seen' : 'keep';
  } catch (err) {
    const which = taken === undefined ? `UID ${place.uid}` : `${taken.kind === 'take' ? taken.message.deliveryId : taken.deliveryId} (UID ${place.uid})`;
    deps.host.failed(new Error(`mail ${which} was not taken: ${messageOf(err)}`, { cause: err }));
    return 'keep';
  }
}

export async function pollOnce(deps: PollDeps): Promise<void> {
  const { settings, host, memory } = deps;
  await withMailbox(deps.imap, settings, async (client, uidValidity) => {
    if (memory.uidValidity !== uidValidity) memory.handedOver.clear();
    memory.uidValidity = uidValidity;
    const unseen = await unseenUids(client);
    const stillUnseen = new Set(unseen);
    for (const uid of memory.handedOver) if (!stillUnseen.has(uid)) memory.handedOver.delete(uid);
    for (const uid of unseen.filter((u) => !memory.handedOver.has(u)).slice(0, MAX_MAILS_PER_POLL)) {
      const source = await fetchMail(client, uid);
      if (source === null) continue;
      const outcome = await decide(deps, source, { mailbox: settings.mailbox, uid, uidValidity });
      if (outcome === 'mark-seen') await markSeen(client, uid);
      else memory.handedOver.add(uid);
    }
  });
  host.activity();
}
