/**
 * The shared tables as `kowalski store copy` moves them: every column, in the order
 * both schemas declare them (the run store: SQLite's migrations 1, 3, 4 and 10, Postgres's
 * migration 1; chat and traces: SQLite's 2, 5 and 13, Postgres's 7; the vault's audit and
 * the Rookery's drafts: SQLite's 6 and 9, Postgres's 8; adapters, plugins, step sends and
 * calls: SQLite's 11, 12, 14 and 15, Postgres's 9),
 * each with its Postgres type, and the primary key the copy pages by. Leases, nodes and
 * hand-overs are not here: they belong to the nodes of one Postgres database (a run with
 * no lease row is claimed on first use).
 */

/** A column's Postgres type: what its values are cast to when a chunk is inserted as arrays. */
export type PgColumnType = 'text' | 'integer' | 'bigint' | 'double precision';

export interface CopyTable {
  name: string;
  columns: ReadonlyArray<{ name: string; pg: PgColumnType }>;
  /** The primary key: rows are read in its order, a chunk at a time, after the last key seen. */
  key: readonly string[];
  /** Postgres generates the key (an identity column): inserting it needs OVERRIDING SYSTEM VALUE, and the sequence is moved past the copied rows. */
  identity?: string;
}

const text = (name: string) => ({ name, pg: 'text' as const });
const int = (name: string) => ({ name, pg: 'integer' as const });
const big = (name: string) => ({ name, pg: 'bigint' as const });
const real = (name: string) => ({ name, pg: 'double precision' as const });

/** In the order they are copied and reported. */
export const COPY_TABLES: readonly CopyTable[] = [
  {
    name: 'events',
    columns: [big('gseq'), text('run_id'), int('seq'), text('type'), int('v'), big('at'), text('data')],
    key: ['gseq'],
  },
  {
    name: 'runs',
    columns: [
      text('id'), text('horde_id'), text('horde_hash'), text('state'), text('provenance'), text('input'),
      big('created_at'), big('updated_at'), big('finished_at'), text('error_code'), text('error'), int('last_seq'),
    ],
    key: ['id'],
  },
  {
    name: 'step_attempts',
    columns: [
      text('run_id'), text('step'), int('attempt'), text('state'), big('started_at'), big('finished_at'), big('duration_ms'),
      text('artifact'), text('summary'), text('error_code'), text('error'), int('pgid'), text('token'),
    ],
    key: ['run_id', 'step', 'attempt'],
  },
  {
    name: 'approvals',
    columns: [
      text('run_id'), int('seq'), text('step'), text('reason'), text('command'), text('hash'), text('state'),
      big('requested_at'), big('decided_at'), text('decided_by'), text('deny_reason'), text('artifact'),
    ],
    key: ['run_id', 'seq'],
  },
  {
    name: 'trigger_state',
    columns: [text('horde_id'), text('name'), int('enabled'), big('last_scheduled'), big('next_fire_at'), big('updated_at')],
    key: ['horde_id', 'name'],
  },
  {
    name: 'trigger_firings',
    columns: [big('id'), text('horde_id'), text('name'), text('key'), big('at'), text('outcome'), text('run_id'), text('detail'), text('input')],
    key: ['id'],
    identity: 'id',
  },
  {
    name: 'watch_hashes',
    columns: [text('horde_id'), text('name'), text('path'), text('hash')],
    key: ['horde_id', 'name', 'path'],
  },
  // Chat sessions and traces of model calls (SQLite's 2, 5, 13; Postgres's 7).
  {
    name: 'chat_events',
    columns: [text('session_id'), int('seq'), text('type'), int('v'), big('at'), text('data')],
    key: ['session_id', 'seq'],
  },
  {
    name: 'chat_sessions',
    columns: [
      text('id'), text('agent'), text('title'), text('state'), int('turns'), text('last_stop'), int('budget_limit'), int('budget_used'),
      big('input_tokens'), big('output_tokens'), int('model_calls'), big('created_at'), big('updated_at'), int('last_seq'),
    ],
    key: ['id'],
  },
  {
    name: 'step_sessions',
    columns: [text('session_id'), text('run_id'), text('step'), text('agent'), big('created_at')],
    key: ['session_id'],
  },
  {
    name: 'traces',
    columns: [
      big('id'), text('run_id'), text('step'), int('attempt'), int('seq'), text('provider'), text('model'), text('mode'),
      int('input_tokens'), int('output_tokens'), real('cost_usd'), big('latency_ms'), int('attempts'), int('tool_calls'),
      text('error_code'), text('error'), big('started_at'), text('data'), text('session_id'), big('parent_id'), text('agent'),
    ],
    key: ['id'],
    identity: 'id',
  },
  {
    name: 'model_tool_modes',
    columns: [text('model'), text('mode'), big('learned_at')],
    key: ['model'],
  },
  // The vault's audit (SQLite's migration 6, Postgres's 8): a revert on any node reads it.
  {
    name: 'note_writes',
    columns: [
      big('write_id'), big('at'), big('finished_at'), text('op'), text('path'), int('bytes_before'), int('bytes_after'), text('content'),
      text('sha256_before'), text('sha256_after'), text('session_id'), text('agent'), big('trace_id'), text('call_key'), text('by'),
      text('state'), text('error'), big('reverts'), big('reverted_by'),
    ],
    key: ['write_id'],
    identity: 'write_id',
  },
  // The Rookery's drafts (SQLite's migration 9, Postgres's 8).
  {
    name: 'rookery_drafts',
    columns: [
      text('id'), text('session_id'), text('draft'), text('stage'), text('birth_sha256'), text('born_horde_id'), text('born_result'),
      big('born_at'), big('created_at'), big('updated_at'),
    ],
    key: ['id'],
  },
  // Adapters', plugins' and two step kinds' records (SQLite 11, 12, 14, 15; Postgres 9). A message before its dedupe keys (they refer to it).
  {
    name: 'adapter_messages',
    columns: [
      big('id'), text('adapter'), text('delivery_id'), text('conversation'), text('sender'), text('text'), text('reply_to'), text('state'),
      text('session_id'), int('turn'), text('answer'), int('reply_attempts'), text('last_error'), big('created_at'), big('updated_at'),
    ],
    key: ['id'],
    identity: 'id',
  },
  {
    name: 'adapter_dedupe',
    columns: [text('adapter'), text('key'), big('message_id'), big('created_at')],
    key: ['adapter', 'key'],
  },
  {
    name: 'adapter_sessions',
    columns: [text('adapter'), text('conversation'), text('session_id'), big('created_at')],
    key: ['adapter', 'conversation'],
  },
  {
    name: 'adapter_switches',
    columns: [big('id'), text('adapter'), int('enabled'), text('by'), big('at')],
    key: ['id'],
    identity: 'id',
  },
  {
    name: 'plugin_grants',
    columns: [text('name'), text('version'), text('permissions_hash'), text('permissions'), text('granted_by'), big('granted_at')],
    key: ['name'],
  },
  {
    name: 'plugin_grant_audit',
    columns: [big('id'), text('name'), text('action'), text('version'), text('permissions_hash'), text('permissions'), text('by'), big('at')],
    key: ['id'],
    identity: 'id',
  },
  {
    name: 'step_sends',
    columns: [
      big('id'), text('run_id'), text('step'), text('adapter'), text('target'), text('state'), int('bytes'), text('sha256'),
      text('message_id'), text('error'), big('created_at'), big('updated_at'),
    ],
    key: ['id'],
    identity: 'id',
  },
  {
    name: 'step_calls',
    columns: [
      big('id'), text('run_id'), text('step'), int('attempt'), text('tool'), text('args_sha256'), text('content'), text('structured'),
      int('from_attempt'), big('created_at'),
    ],
    key: ['id'],
    identity: 'id',
  },
];

/** A row as both drivers give it: column name → value (text, number or null). */
export type CopyRow = Record<string, string | number | null>;
