/** Read something again when the server says it changed (the websocket's `changed` frames), instead of polling it. */
import { useEffect } from 'preact/hooks';
import { useServices } from '../services';
import type { ChangedTopic } from '../types';

/** `refresh` is called each time `topic` changes on the server, and after the connection comes back. */
export function useChanged(topic: ChangedTopic, refresh: () => void): void {
  const { socket } = useServices();
  useEffect(() => socket.watch(topic, refresh), [socket, topic, refresh]);
}
