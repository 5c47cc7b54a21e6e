/** What every screen uses — the API client and the websocket — handed down by context, not imported as singletons. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api';
import type { KowalskiSocket } from './socket';

export interface Services {
  api: Api;
  socket: KowalskiSocket;
}

export const ServicesContext = createContext<Services | null>(null);

export function useServices(): Services {
  const s = useContext(ServicesContext);
  if (s === null) throw new Error('useServices outside <ServicesContext.Provider>');
  return s;
}
