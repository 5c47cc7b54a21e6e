/**
 * The app keeps its own copy of the API's shapes (ui/src/types.ts), so its bundle never
 * pulls in server code. This file makes the type checker (npm run typecheck) fail when
 * the server's shapes and the app's copy drift apart, and checks the shared value lists.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentList, Health, HordeDetail, HordeSummary, ServerFrame } from '../../api/index.js';
import { CHAT_STATES } from '../../actors/index.js';
import { RUN_STATES } from '../../engine/index.js';
import type { ProbeResult, SqlBatchFile, TableProfileFile } from '../../agents/index.js';
import type { BundleReport } from '../../bundles/index.js';
import type {
  AdapterStatus, NodesView, AgentProfile, AgentSource, BirthResult, PluginAuditEntry, PluginStatus, ChatSessionSummary, DraftSummary, DraftView, HordeDraft, NoteInfo, StepKindSummary, NoteWrite, RecoverySummary, SearchAnswer, RunRow, RunView, Setup, SetupPatch, SetupWritten, StoredEvent, TraceDetail, TraceSummary, TriggerView, TurnView,
} from '../../engine/index.js';
import { CHAT_STATES as UI_CHAT_STATES, RUN_STATES as UI_RUN_STATES, TOOL_CALLING } from '../../ui/src/types.js';
import type * as Ui from '../../ui/src/types.js';

/** Compiles only when a value of the server's type is accepted where the app expects its own. */
function accepts<Expected>(_value: Expected): void {}

// Each line fails to compile if the server sends something the app's type does not describe.
export const serverShapesFitTheApp = [
  (v: RunRow) => accepts<Ui.RunRow>(v),
  (v: RunView) => accepts<Ui.RunView>(v),
  (v: StoredEvent) => accepts<Ui.StoredEvent>({ ...v, event: { ...v.event } }),
  (v: Setup) => accepts<Ui.Setup>(v),
  (v: Setup & { written: SetupWritten; check: ProbeResult | null }) => accepts<Ui.SetupSaved>(v),
  (v: RecoverySummary) => accepts<Ui.Recovery>(v),
  (v: Health) => accepts<Ui.Health>(v),
  (v: HordeSummary) => accepts<Ui.HordeSummary>(v),
  (v: HordeDetail) => accepts<Ui.HordeDetail>(v),
  (v: TraceSummary) => accepts<Ui.TraceSummary>(v),
  (v: TraceDetail) => accepts<Ui.TraceDetail>(v),
  // GET /api/traces answers this shape inline (api/routes/traces.ts).
  (v: { traces: TraceSummary[]; nextBefore: number | null }) => accepts<Ui.TracePage>(v),
  (v: TriggerView) => accepts<Ui.TriggerView>(v),
  // GET /api/triggers answers this shape inline (api/routes/triggers.ts).
  (v: { triggers: TriggerView[] }) => accepts<{ triggers: Ui.TriggerView[] }>(v),
  // POST /api/bundles answers the staged report with its review id (api/routes/bundles.ts).
  (v: BundleReport & { reviewId: string; expiresAt: number }) => accepts<Ui.BundleReview>(v),
  (v: Extract<ServerFrame, { type: 'progress' }>) => accepts<Ui.ProgressFrame>(v),
  (v: Extract<ServerFrame, { type: 'trace' }>) => accepts<Ui.TraceFrame>(v),
  // The JSON files the data steps write, which the app renders as tables.
  (v: SqlBatchFile) => accepts<Ui.SqlBatchFile>(v),
  (v: TableProfileFile) => accepts<Ui.TableProfileFile>(v),
  // The agent profiles (api/routes/agents.ts).
  (v: AgentList) => accepts<Ui.AgentList>(v),
  (v: AgentSource) => accepts<Ui.AgentSource>(v),
  (v: AgentProfile) => accepts<Ui.AgentProfile>(v),
  // The chat: sessions, their transcript, and the frames of a followed session.
  (v: ChatSessionSummary) => accepts<Ui.ChatSessionSummary>(v),
  (v: ChatSessionSummary & { transcript: TurnView[] }) => accepts<Ui.ChatSessionView>(v),
  (v: Extract<ServerFrame, { type: 'chat-event' }>) => accepts<Ui.ChatEventFrame>(v),
  (v: Extract<ServerFrame, { type: 'chat-synced' }>) => accepts<Ui.ChatSyncedFrame>(v),
  (v: Extract<ServerFrame, { type: 'chat-token' }>) => accepts<Ui.ChatTokenFrame>(v),
  // The vault: notes, the audit of writes, search (api/routes/vault.ts, vault-search.ts).
  (v: NoteInfo) => accepts<Ui.NoteInfo>(v),
  (v: NoteWrite) => accepts<Ui.NoteWrite>(v),
  (v: SearchAnswer) => accepts<Ui.SearchAnswer>(v),
  // The Rookery (api/routes/rookery.ts).
  (v: DraftView) => accepts<Ui.DraftView>(v),
  (v: DraftSummary) => accepts<Ui.DraftSummary>(v),
  (v: BirthResult) => accepts<Ui.BirthResult>(v),
  (v: StepKindSummary) => accepts<Ui.StepKindSummary>(v),
  // …and what the app sends is what the server takes.
  (v: Ui.SetupPatch) => accepts<SetupPatch>(v),
  (v: Ui.HordeDraft) => accepts<HordeDraft>(v),
];

// The Rookery's shapes both ways: the app's copy names every field the server sends.
export const appRookeryShapesFitTheServer = [
  (v: Ui.DraftView) => accepts<DraftView>(v),
  (v: Ui.DraftSummary) => accepts<DraftSummary>(v),
  (v: Ui.BirthResult) => accepts<BirthResult>(v),
];

// The trace shapes are checked the other way too: an app copy missing a field the server sends fails as well.
export const appTraceShapesFitTheServer = [
  (v: Ui.TraceSummary) => accepts<TraceSummary>(v),
  (v: Ui.TraceDetail) => accepts<TraceDetail>(v),
  (v: Ui.TraceFrame) => accepts<Extract<ServerFrame, { type: 'trace' }>>(v),
];

// The vault's shapes both ways: the app's copy names every field the server sends.
export const appVaultShapesFitTheServer = [
  (v: Ui.NoteInfo) => accepts<NoteInfo>(v),
  (v: Ui.NoteWrite) => accepts<NoteWrite>(v),
  (v: Ui.SearchAnswer) => accepts<SearchAnswer>(v),
];

// The trigger view both ways too: the app's copy names every field the server sends.
export const appTriggerShapesFitTheServer = [
  (v: Ui.TriggerView) => accepts<TriggerView>(v),
];

// The chat shapes both ways: the app's copy names every field the server sends.
export const appChatShapesFitTheServer = [
  (v: Ui.ChatSessionSummary) => accepts<ChatSessionSummary>(v),
  (v: Ui.TurnView) => accepts<Omit<TurnView, 'items' | 'answer' | 'memories'>>(v),
  (v: Ui.ChatTokenFrame) => accepts<Extract<ServerFrame, { type: 'chat-token' }>>(v),
  (v: Ui.ChatSyncedFrame) => accepts<Extract<ServerFrame, { type: 'chat-synced' }>>(v),
];

// The plugins (api/routes/plugins.ts) both ways: the app's copy names every field the server sends.
export const appPluginShapesFitTheServer = [
  (v: { plugins: PluginStatus[] }) => accepts<{ plugins: Ui.PluginStatus[] }>(v),
  (v: { plugin: PluginStatus; audit: PluginAuditEntry[] }) => accepts<{ plugin: Ui.PluginStatus; audit: Ui.PluginAuditEntry[] }>(v),
  (v: Ui.PluginStatus) => accepts<PluginStatus>(v),
  (v: Ui.PluginAuditEntry) => accepts<PluginAuditEntry>(v),
];

// The adapters (api/routes/adapters.ts) both ways: the app's copy names every field the server sends.
export const appAdapterShapesFitTheServer = [
  (v: { adapters: AdapterStatus[] }) => accepts<{ adapters: Ui.AdapterStatus[] }>(v),
  (v: AdapterStatus) => accepts<Ui.AdapterStatus>(v),
  (v: Ui.AdapterStatus) => accepts<AdapterStatus>(v),
];

// The nodes (api/routes/nodes.ts) both ways: the app's copy names every field the server sends.
export const appNodeShapesFitTheServer = [
  (v: NodesView) => accepts<Ui.NodesView>(v),
  (v: Ui.NodesView) => accepts<NodesView>(v),
];

test('the app lists the same chat states as the server', () => {
  assert.deepEqual([...UI_CHAT_STATES].sort(), [...CHAT_STATES].sort());
});

test('the app lists the same run states and tool-calling modes as the server', () => {
  assert.deepEqual([...UI_RUN_STATES].sort(), [...RUN_STATES].sort());
  assert.deepEqual([...TOOL_CALLING], ['auto', 'native', 'text']);
});
