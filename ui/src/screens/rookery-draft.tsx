/**
 * `#/rookery/<draft>`: one horde being built. The conversation with the builder on one side
 * (when the draft has one; the Chat screen's thread), the live draft on the other: its stage,
 * the horde graph, and the direct editor with the problems next to their step and key. The
 * draft is read again whenever the conversation moves (each committed chat event: a tool
 * call that changed it, or an answer holding a draft block).
 */
import { useEffect, useState } from 'preact/hooks';
import { ChatThread } from '../components/chat-thread';
import { DraftEditor } from '../components/draft-editor';
import { NoModelNotice, StageTag } from '../components/draft-parts';
import { HordeGraph } from '../components/horde-graph';
import { ErrorBox, Loading } from '../components/status';
import { useChatSession } from '../hooks/use-chat-session';
import { useHasModel } from '../hooks/use-has-model';
import { useResource } from '../hooks/use-resource';
import { draftGraph } from '../rookery-draft';
import { useServices } from '../services';
import type { DraftView } from '../types';

export function RookeryDraftScreen({ id }: { id: string }) {
  const { api } = useServices();
  const loaded = useResource(() => api.draft(id), [api, id]);
  const kinds = useResource(() => api.stepKinds(), [api]);
  const [view, setView] = useState<DraftView | undefined>(undefined);
  useEffect(() => setView(loaded.data), [loaded.data]);
  const hasModel = useHasModel();

  return (
    <section aria-labelledby="rookery-title">
      <p class="crumbs"><a href="#/rookery">Rookery</a> <span aria-hidden="true">/</span> <code>{id}</code></p>
      {view === undefined && loaded.loading && <Loading label="Loading the draft…" />}
      {loaded.error !== undefined && <ErrorBox error={loaded.error} title="Could not load this draft" onRetry={loaded.reload} />}
      {view !== undefined && (
        <>
          <div class="page-head page-head--row">
            <h1 id="rookery-title">{view.draft.display_name || view.draft.id || 'A new horde'} <StageTag stage={view.stage} testId="draft-stage" /></h1>
          </div>
          {hasModel === false && <NoModelNotice />}
          <div class={view.session_id === null ? 'rookery rookery--alone' : 'rookery'}>
            {view.session_id !== null && (
              <div class="rookery__chat" aria-label="The conversation with the builder">
                <h2>The builder</h2>
                <BuilderChat sessionId={view.session_id} onMoved={loaded.refresh} />
              </div>
            )}
            <div class="rookery__draft">
              <h2>The draft</h2>
              {view.draft.steps.length > 0 && <HordeGraph horde={draftGraph(view.draft)} />}
              {kinds.error !== undefined && <ErrorBox error={kinds.error} title="Could not load the step kinds" onRetry={kinds.reload} />}
              <DraftEditor view={view} kinds={kinds.data ?? []} onChanged={setView} />
            </div>
          </div>
        </>
      )}
    </section>
  );
}

/** The builder's conversation; `onMoved` after each committed event of it (the draft may have changed). */
function BuilderChat({ sessionId, onMoved }: { sessionId: string; onMoved(): void }) {
  const live = useChatSession(sessionId);
  const session = live.view.data;
  const seq = session?.lastSeq;
  useEffect(() => {
    if (seq !== undefined) onMoved();
  }, [seq, onMoved]);
  if (session === undefined) {
    return live.view.error === undefined ? <Loading label="Loading the conversation…" /> : <ErrorBox error={live.view.error} title="Could not load the conversation" onRetry={live.view.reload} />;
  }
  return <ChatThread session={session} live={live} state={live.state ?? session.state} empty="Tell the builder what work the horde should do." />;
}
