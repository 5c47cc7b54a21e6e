/**
 * One chat session, live: its view from `GET /api/chat/sessions/:id`, followed on the
 * websocket from that view's `lastSeq`. Each committed event refetches the view (debounced:
 * the server folds the log into the transcript); tokens build what each agent is writing.
 */
import { useEffect, useState } from 'preact/hooks';
import { applyChatFrame, NO_STREAMS } from '../chat-stream';
import type { Streams } from '../chat-stream';
import { useServices } from '../services';
import type { ChatSessionView, ChatState } from '../types';
import { useDebounced } from './use-debounced';
import { useResource } from './use-resource';
import type { Resource } from './use-resource';

export interface LiveChat {
  view: Resource<ChatSessionView>;
  /** The session's state as last heard (the socket is ahead of the view). */
  state: ChatState | undefined;
  streams: Streams;
  /** Following: the first view is in and the follow is on the wire. */
  following: boolean;
}

export function useChatSession(id: string): LiveChat {
  const { api, socket } = useServices();
  const view = useResource(() => api.chatSession(id), [api, id]);
  const refresh = useDebounced(view.refresh, 100);
  const [heard, setHeard] = useState<ChatState | undefined>(undefined);
  const [streams, setStreams] = useState<Streams>(NO_STREAMS);
  const [synced, setSynced] = useState(false);

  // Follow once the first view is in, after its last event: nothing missed, nothing twice.
  const firstSeq = view.data?.id === id ? view.data.lastSeq : undefined;
  const loaded = firstSeq !== undefined;
  useEffect(() => {
    if (firstSeq === undefined) return undefined;
    return socket.followChat(id, (frame) => {
      setStreams((s) => applyChatFrame(s, frame));
      if (frame.type === 'chat-token') return;
      if (frame.type === 'chat-synced') setSynced(true);
      if (frame.state !== null) setHeard(frame.state);
      refresh();
    }, firstSeq);
    // Only the first view's seq matters (hence `loaded`): refreshes must not follow again.
  }, [socket, id, loaded, refresh]);

  return { view, state: heard ?? view.data?.state, streams, following: synced };
}
