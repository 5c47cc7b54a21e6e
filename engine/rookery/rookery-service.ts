/**
 * The Rookery's drafts, durable (`engine.rookery`): a horde being built in the app's editor or in
 * a chat session with the `builder` agent, kept in `rookery_drafts` (migration 9; Postgres's 8) and edited only
 * through the pure draft functions of this folder. Every read comes with the engine's own check
 * (problems pointed at their step and key) and the stage it puts the draft at. A birth writes the
 * folder into `<data>/hordes/` and has the catalog re-read; it is keyed by the draft's content, so
 * a birth repeated (a tool call replayed after a crash) gives the same answer instead of
 * KW_ERR_HORDE_EXISTS.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { Clock } from '../base/clock.js';
import { HORDE_ID } from '../horde/index.js';
import type { Observers } from '../observers.js';
import type { RookeryDraftRow, RookeryQueries } from '../store/sql/rookery.js';
import { boundedDraft } from './check.js';
import { checkDraft, draftStage, parseDraft, writeDraft } from './index.js';
import type { BirthResult, HordeDraft } from './types.js';
import type { DraftSummary, DraftView } from '../../contract/rookery.js';
export type { DraftSummary, DraftView } from '../../contract/rookery.js';

/** The agent whose chat sessions build drafts (`team/builder.md`). */
export const BUILDER_AGENT = 'builder';
/** Most drafts one list returns. */
export const MAX_DRAFTS_LISTED = 500;

/** What the service needs of the chat: a session with the builder, and who a session talks to. */
export interface RookeryChat {
  create(options: { agent: string; title?: string; by?: string }): { id: string };
  summary(id: string): { agent: string };
}

export interface RookeryDeps {
  /** The drafts: in the data folder's SQLite (rookeryQueries), or in the Postgres store the nodes share (pgRookeryQueries). */
  queries: RookeryQueries;
  clock: Clock;
  observers: Observers;
  /** `<data>/hordes/`: where a birth writes the folder. */
  hordesDir: string;
  /** The step kinds this engine runs. */
  knownKinds(): ReadonlySet<string>;
  /** The tool names a step may list without a warning (built-ins, the data tools). */
  knownTools(): ReadonlySet<string>;
  /** The builder's chat sessions. */
  chat: RookeryChat;
  /** A horde folder was written: make the catalog (and its triggers) see it. */
  onBorn(hordeId: string): Promise<void>;
}

/** The draft a new conversation starts from: nothing yet (its check says what is missing). */
const EMPTY_DRAFT: HordeDraft = { id: '', display_name: '', description: '', steps: [], edges: [], triggers: [] };

const contentHash = (draft: HordeDraft): string => crypto.createHash('sha256').update(JSON.stringify(draft)).digest('hex');

export class RookeryService {
  private readonly q: RookeryQueries;

  constructor(private readonly deps: RookeryDeps) {
    this.q = deps.queries;
    // A builder that prints the draft (a fenced ```toml or ```json block) instead of calling the tools: the block becomes the draft.
    deps.observers.on('chat:event', ({ stored }) => {
      if (stored.event.type === 'turn.finished') this.takeReply(stored.sessionId, stored.event.text);
    });
  }

  /** A new draft, empty; `withChat`: with a new chat session of the builder agent building it. */
  async create(options: { withChat?: boolean; by?: string } = {}): Promise<DraftView> {
    const session = options.withChat === true ? this.deps.chat.create({ agent: BUILDER_AGENT, title: 'Rookery', by: options.by ?? 'api' }).id : null;
    return this.view(this.insert(session));
  }

  list(limit = 100): DraftSummary[] {
    return this.q.list(Math.min(limit, MAX_DRAFTS_LISTED)).map((r) => {
      const draft = JSON.parse(r.draft) as HordeDraft;
      return { id: r.id, session_id: r.session_id, horde_id: draft.id, display_name: draft.display_name, steps: draft.steps.length, stage: r.stage, born_horde_id: r.born_horde_id, updated_at: r.updated_at };
    });
  }

  /** The draft with its check; KW_ERR_DRAFT_NOT_FOUND. */
  get(id: string): Promise<DraftView> {
    return this.view(this.row(id));
  }

  /** The draft of a chat session, made (empty) at its first use: what the builder's tools work on. */
  forSession(sessionId: string): Promise<DraftView> {
    return this.view(this.q.bySession(sessionId) ?? this.insert(sessionId));
  }

  /** The draft's id for a chat session (made at its first use). */
  idForSession(sessionId: string): string {
    return (this.q.bySession(sessionId) ?? this.insert(sessionId)).id;
  }

  /** A direct edit: the whole draft, normalised (KW_ERR_DRAFT_INVALID when it is not a draft at all, KW_ERR_DRAFT_TOO_LARGE), then checked. */
  replace(id: string, input: unknown): Promise<DraftView> {
    this.row(id);
    return this.store(id, input);
  }

  /** One edit (a pure function of the draft: `setStep`, `removeStep`, …) applied to the draft as it is now. */
  edit(id: string, change: (draft: HordeDraft) => HordeDraft): Promise<DraftView> {
    return this.store(id, change(this.draftOf(this.row(id))));
  }

  /**
   * Write the draft as `<data>/hordes/<id>/` and have the catalog re-read. A draft whose content was
   * born already answers with that birth (nothing written again); a folder of the same id that this
   * draft did not write needs `overwrite` (else KW_ERR_HORDE_EXISTS); an invalid draft KW_ERR_DRAFT_INVALID.
   */
  async birth(id: string, options: { overwrite?: boolean } = {}): Promise<BirthResult> {
    const row = this.row(id);
    const draft = this.draftOf(row);
    const sha = contentHash(draft);
    const target = HORDE_ID.test(draft.id) ? path.join(this.deps.hordesDir, draft.id) : undefined;
    const exists = target !== undefined && fs.existsSync(target);
    if (exists && row.born_result !== null && row.birth_sha256 === sha && row.born_horde_id === draft.id) return JSON.parse(row.born_result) as BirthResult;
    // Ours: the folder this draft wrote before, or the one a birth of this very content was writing when the engine stopped.
    const ours = exists && (row.born_horde_id === draft.id || row.birth_sha256 === sha);
    if (exists && !ours && options.overwrite !== true) {
      throw new KowalskiError('KW_ERR_HORDE_EXISTS', `a horde "${draft.id}" is already installed (${target}); choose another id, or create it again with overwrite to replace it`);
    }
    this.q.birthStarted(id, sha, this.deps.clock.now());
    const result = await writeDraft(draft, { outputRoot: this.deps.hordesDir, overwrite: exists, knownKinds: this.deps.knownKinds(), knownTools: this.deps.knownTools() });
    this.q.born(id, result.horde_id, JSON.stringify(result), this.deps.clock.now());
    await this.deps.onBorn(result.horde_id);
    return result;
  }

  private insert(sessionId: string | null): RookeryDraftRow {
    const id = `d${this.deps.clock.now().toString(36)}${crypto.randomBytes(5).toString('hex')}`;
    this.q.insert(id, sessionId, JSON.stringify(EMPTY_DRAFT), 'interview', this.deps.clock.now());
    return this.q.byId(id)!;
  }

  private row(id: string): RookeryDraftRow {
    const row = this.q.byId(id);
    if (row === undefined) throw new KowalskiError('KW_ERR_DRAFT_NOT_FOUND', `no Rookery draft ${JSON.stringify(id)}`);
    return row;
  }

  private draftOf(row: RookeryDraftRow): HordeDraft {
    return JSON.parse(row.draft) as HordeDraft;
  }

  /** The new draft, bounded and written at once (an edit is one synchronous read-change-write), then checked for its stage. */
  private async store(id: string, input: unknown): Promise<DraftView> {
    const draft = boundedDraft(input);
    const row = this.row(id);
    this.q.setDraft(id, JSON.stringify(draft), row.stage === 'born' ? 'proposed' : row.stage, this.deps.clock.now());
    return this.view(this.row(id));
  }

  /** The draft with the engine's check of it; the stage it reaches is recorded. */
  private async view(row: RookeryDraftRow): Promise<DraftView> {
    const draft = this.draftOf(row);
    const check = await checkDraft(draft, { knownKinds: this.deps.knownKinds(), knownTools: this.deps.knownTools() });
    const born = row.born_horde_id !== null && row.birth_sha256 === contentHash(draft);
    const stage = draftStage(check, born);
    const now = this.q.byId(row.id)!;
    if (now.stage !== stage && now.draft === row.draft) this.q.setStage(row.id, stage);
    return {
      id: row.id, session_id: row.session_id, draft, stage, ok: check.ok, problems: check.problems,
      born: row.born_result === null ? null : JSON.parse(row.born_result) as BirthResult, born_at: row.born_at,
      created_at: row.created_at, updated_at: row.updated_at,
    };
  }

  /** A builder's reply that holds a draft block: the session's draft becomes it. */
  private takeReply(sessionId: string, text: string): void {
    if (!text.includes('```')) return;
    let row = this.q.bySession(sessionId);
    if (row === undefined) {
      if (this.deps.chat.summary(sessionId).agent !== BUILDER_AGENT) return;
      row = this.insert(sessionId);
    }
    const parsed = parseDraft(text);
    if (!parsed.ok) return;
    const id = row.id;
    this.store(id, parsed.draft).catch((err: unknown) => this.deps.observers.emit('engine:warning', { message: `Rookery draft ${id}: ${messageOf(err)}` }));
  }
}
