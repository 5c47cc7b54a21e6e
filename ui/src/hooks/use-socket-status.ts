/** The websocket's connection state, re-rendering when it changes. */
import { useEffect, useState } from 'preact/hooks';
import { useServices } from '../services';
import type { SocketStatus } from '../socket';

export function useSocketStatus(): SocketStatus {
  const { socket } = useServices();
  const [status, setStatus] = useState(() => socket.getStatus());
  useEffect(() => {
    setStatus(socket.getStatus());
    return socket.onStatus(setStatus);
  }, [socket]);
  return status;
}
