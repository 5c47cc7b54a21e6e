/**
 * The vault's five tools for agents: list_notes, read_note, search_notes (reads: safe to
 * run again), create_note and append_note (writes, audited). A write is keyed by the
 * tool call's durable key, so the same call made again after a crash finds its write
 * instead of writing twice: that is why the write tools are idempotent too. A write
 * needs a chat agent as its caller (session, agent, the model call's trace): a chat turn or
 * a horde's agent step; a horde's model step is refused with KW_ERR_VAULT_NO_CALLER (a
 * vault_note step writes without a model).
 */
import { KowalskiError } from '../../core/index.js';
import type { Tool, ToolCaller } from '../../agents/index.js';
import type { NoteInfo, NoteWrite, SearchAnswer, SearchOptions, WriteOrigin } from './types.js';
import { MAX_VAULT_PATH } from './vault-paths.js';

/** The vault's tools, by name (what `kowalski agents` accepts in a profile without an engine running). */
export const VAULT_TOOL_NAMES: readonly string[] = ['list_notes', 'read_note', 'search_notes', 'create_note', 'append_note'];

/** What the tools need of the vault. */
export interface VaultToolTarget {
  maxNoteBytes: number;
  list(under?: string): NoteInfo[];
  read(path: string): { note: NoteInfo; content: string };
  search(query: string, options: SearchOptions): Promise<SearchAnswer>;
  create(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
  append(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
}

/** Notes one list_notes answer names (the rest are counted). */
const LIST_LINES = 200;
/** Most hits search_notes returns. */
const MAX_SEARCH_LIMIT = 50;

const pathField = { type: 'string', minLength: 1, maxLength: MAX_VAULT_PATH, description: 'The note, relative to the vault, e.g. "projects/acme.md"' };

function originOf(caller: ToolCaller | undefined, tool: string): WriteOrigin {
  if (caller === undefined || caller.traceId === null) {
    throw new KowalskiError('KW_ERR_VAULT_NO_CALLER', `${tool}: vault writes are made by chat agents, each recorded with its session and the model call that asked for it; a horde's model step cannot write notes (it may read them): write with a vault_note step after it, or give the writing to an agent step whose profile lists ${tool}`);
  }
  return { sessionId: caller.sessionId, agent: caller.agent, traceId: caller.traceId, callKey: caller.key, by: 'agent' };
}

const line = (n: NoteInfo): string => `- ${n.path} — ${n.title} (${n.size_bytes} bytes)`;

export function createVaultTools(vault: VaultToolTarget): Tool[] {
  const listNotes: Tool = {
    idempotent: true,
    spec: {
      name: 'list_notes',
      description: 'List the notes of the vault (the Markdown notes shared with the user), or of one folder of it: path, title and size of each.',
      inputSchema: {
        type: 'object',
        properties: { under: { type: 'string', maxLength: MAX_VAULT_PATH, description: 'Only notes in this folder, e.g. "projects" (default: the whole vault)' } },
        additionalProperties: false,
      },
    },
    async call(args) {
      const under = typeof args.under === 'string' ? args.under : '';
      const notes = vault.list(under);
      const where = under === '' ? 'the vault' : JSON.stringify(under);
      if (notes.length === 0) return { content: `(${where} holds no notes)`, meta: { count: 0 } };
      const more = notes.length > LIST_LINES ? `\n… and ${notes.length - LIST_LINES} more (list a folder to see them)` : '';
      return { content: `${notes.length} note(s) in ${where}:\n${notes.slice(0, LIST_LINES).map(line).join('\n')}${more}`, meta: { count: notes.length } };
    },
  };

  const readNote: Tool = {
    idempotent: true,
    spec: {
      name: 'read_note',
      description: 'Read one note of the vault, whole (front matter, links and tags as written).',
      inputSchema: { type: 'object', properties: { path: pathField }, required: ['path'], additionalProperties: false },
    },
    async call(args) {
      const { note, content } = vault.read(String(args.path));
      return { content: content === '' ? `(${JSON.stringify(note.path)} is empty)` : content, meta: { path: note.path, title: note.title, size_bytes: note.size_bytes, modified_at: note.modified_at } };
    },
  };

  const searchNotes: Tool = {
    idempotent: true,
    spec: {
      name: 'search_notes',
      description: 'Search the notes of the vault by words; returns the best notes with a passage around the match (the words found in [ ]).',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 1000, description: 'The words to look for' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, description: 'Most notes to return (default 10)' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    async call(args) {
      const answer = await vault.search(String(args.query), { limit: typeof args.limit === 'number' ? args.limit : 10, semantic: 'auto' });
      const note = answer.note === undefined ? '' : `\n(${answer.note})`;
      if (answer.hits.length === 0) return { content: `No note matches ${JSON.stringify(answer.query)}.${note}`, meta: { hits: 0, mode: answer.mode } };
      const hits = answer.hits.map((h) => `- ${h.path} — ${h.title}${h.heading === undefined ? '' : ` § ${h.heading}`}\n  ${h.snippet}`);
      return { content: `${hits.join('\n')}${note}`, meta: { hits: answer.hits.length, mode: answer.mode } };
    },
  };

  const contentField = (what: string) => ({ type: 'string', description: `${what} (Markdown; at most ${vault.maxNoteBytes} bytes per note)` });

  const createNote: Tool = {
    idempotent: true,
    spec: {
      name: 'create_note',
      description: 'Create a new note in the vault (missing folders are made). Fails if the note exists: use append_note to add to it. Every write is recorded and can be reverted by the user.',
      inputSchema: { type: 'object', properties: { path: pathField, content: contentField('The whole text of the new note') }, required: ['path', 'content'], additionalProperties: false },
    },
    async call(args, ctx) {
      const w = await vault.create(String(args.path), String(args.content), originOf(ctx.caller, 'create_note'));
      return { content: `Created the note ${JSON.stringify(w.path)} (${w.bytesAfter} bytes; write ${w.writeId}).`, meta: { writeId: w.writeId, path: w.path, bytes: w.bytesAfter } };
    },
  };

  const appendNote: Tool = {
    idempotent: true,
    spec: {
      name: 'append_note',
      description: 'Add text at the end of an existing note of the vault (on a new line when the note does not end with one). Fails if the note does not exist: use create_note. Every write is recorded and can be reverted by the user.',
      inputSchema: { type: 'object', properties: { path: pathField, content: contentField('The text to add') }, required: ['path', 'content'], additionalProperties: false },
    },
    async call(args, ctx) {
      const w = await vault.append(String(args.path), String(args.content), originOf(ctx.caller, 'append_note'));
      return {
        content: `Appended ${w.bytesAfter - w.bytesBefore} bytes to ${JSON.stringify(w.path)} (now ${w.bytesAfter} bytes; write ${w.writeId}).`,
        meta: { writeId: w.writeId, path: w.path, bytes: w.bytesAfter },
      };
    },
  };

  return [listNotes, readNote, searchNotes, createNote, appendNote];
}
