/** Hash routing (`#/hordes`, `#/runs/<id>`, `#/chat/<session>`, `#/agents/<name>`, `#/vault?note=<path>`, `#/import`, …), so the server needs no fallback route. */
import { useEffect, useState } from 'preact/hooks';
import { RUN_STATES } from './types';
import type { HordeOrigin, RunState } from './types';

const HORDE_ORIGINS: readonly HordeOrigin[] = ['builtin', 'user', 'imported'];

export type Route =
  | { name: 'hordes' }
  /** `origin`: of two hordes with one id, the one of that origin (`#/hordes/<id>?origin=user`). */
  | { name: 'horde'; id: string; origin?: HordeOrigin }
  | { name: 'runs'; status: RunState | undefined; horde: string | undefined }
  | { name: 'run'; id: string }
  | { name: 'setup' }
  | { name: 'import' }
  | { name: 'agents' }
  | { name: 'adapters' }
  | { name: 'plugins' }
  | { name: 'nodes' }
  | { name: 'agent'; id: string }
  | { name: 'chat'; id: string | undefined }
  | { name: 'vault'; note: string | undefined }
  | { name: 'rookery'; id: string | undefined }
  | { name: 'notFound'; path: string };

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [pathPart = '', queryPart = ''] = raw.split('?', 2);
  const parts = pathPart.split('/').filter((p) => p !== '').map(safeDecode);
  const q = new URLSearchParams(queryPart);
  const [head, id, extra] = parts;
  if (extra !== undefined) return { name: 'notFound', path: raw };
  switch (head) {
    case undefined:
    case 'hordes':
      if (id === undefined) return { name: 'hordes' };
      return HORDE_ORIGINS.includes(q.get('origin') as HordeOrigin) ? { name: 'horde', id, origin: q.get('origin') as HordeOrigin } : { name: 'horde', id };
    case 'runs': {
      if (id !== undefined) return { name: 'run', id };
      const status = q.get('status');
      const horde = q.get('horde');
      return {
        name: 'runs',
        status: RUN_STATES.find((s) => s === status),
        horde: horde === null || horde === '' ? undefined : horde,
      };
    }
    case 'setup':
      return id === undefined ? { name: 'setup' } : { name: 'notFound', path: raw };
    case 'import':
      return id === undefined ? { name: 'import' } : { name: 'notFound', path: raw };
    case 'agents':
      return id === undefined ? { name: 'agents' } : { name: 'agent', id };
    case 'adapters':
      return id === undefined ? { name: 'adapters' } : { name: 'notFound', path: raw };
    case 'plugins':
      return id === undefined ? { name: 'plugins' } : { name: 'notFound', path: raw };
    case 'nodes':
      return id === undefined ? { name: 'nodes' } : { name: 'notFound', path: raw };
    case 'chat':
      return { name: 'chat', id };
    case 'rookery':
      return { name: 'rookery', id };
    case 'vault': {
      if (id !== undefined) return { name: 'notFound', path: raw };
      const note = q.get('note');
      return { name: 'vault', note: note === null || note === '' ? undefined : note };
    }
    default:
      return { name: 'notFound', path: raw };
  }
}

/** The `#/…` link for a route. */
export function href(route: Route): string {
  const e = encodeURIComponent;
  switch (route.name) {
    case 'hordes': return '#/hordes';
    case 'horde': return `#/hordes/${e(route.id)}${route.origin === undefined ? '' : `?origin=${route.origin}`}`;
    case 'runs': {
      const q = new URLSearchParams();
      if (route.status !== undefined) q.set('status', route.status);
      if (route.horde !== undefined) q.set('horde', route.horde);
      const s = q.toString();
      return s === '' ? '#/runs' : `#/runs?${s}`;
    }
    case 'run': return `#/runs/${e(route.id)}`;
    case 'setup': return '#/setup';
    case 'import': return '#/import';
    case 'agents': return '#/agents';
    case 'adapters': return '#/adapters';
    case 'plugins': return '#/plugins';
    case 'nodes': return '#/nodes';
    case 'agent': return `#/agents/${e(route.id)}`;
    case 'chat': return route.id === undefined ? '#/chat' : `#/chat/${e(route.id)}`;
    case 'rookery': return route.id === undefined ? '#/rookery' : `#/rookery/${e(route.id)}`;
    case 'vault': return route.note === undefined ? '#/vault' : `#/vault?note=${e(route.note)}`;
    case 'notFound': return `#${route.path}`;
  }
}

export const hordeHref = (id: string, origin?: HordeOrigin): string => href(origin === undefined ? { name: 'horde', id } : { name: 'horde', id, origin });
export const runHref = (id: string): string => href({ name: 'run', id });
export const agentHref = (id: string): string => href({ name: 'agent', id });
export const chatHref = (id: string): string => href({ name: 'chat', id });

export function navigate(route: Route): void {
  window.location.hash = href(route);
}

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
