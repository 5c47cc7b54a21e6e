/** The top bar: the app's name, the sections, and a notice while live updates are down. */
import { useSocketStatus } from '../hooks/use-socket-status';
import type { Route } from '../router';

const SECTIONS = [
  { href: '#/hordes', label: 'Hordes', match: ['hordes', 'horde'] },
  { href: '#/runs', label: 'Runs', match: ['runs', 'run'] },
  { href: '#/rookery', label: 'Rookery', match: ['rookery'] },
  { href: '#/chat', label: 'Chat', match: ['chat'] },
  { href: '#/agents', label: 'Agents', match: ['agents', 'agent'] },
  { href: '#/vault', label: 'Vault', match: ['vault'] },
  { href: '#/adapters', label: 'Adapters', match: ['adapters'] },
  { href: '#/plugins', label: 'Plugins', match: ['plugins'] },
  { href: '#/nodes', label: 'Nodes', match: ['nodes'] },
  { href: '#/import', label: 'Import', match: ['import'] },
  { href: '#/setup', label: 'Setup', match: ['setup'] },
] as const;

export function Nav({ route }: { route: Route }) {
  const status = useSocketStatus();
  return (
    <header class="topbar">
      <div class="topbar__inner">
        <a class="brand" href="#/hordes">kowalski</a>
        <nav aria-label="Main">
          <ul class="nav">
            {SECTIONS.map((s) => {
              const current = (s.match as readonly string[]).includes(route.name);
              return (
                <li key={s.href}>
                  <a href={s.href} class={current ? 'nav__link nav__link--current' : 'nav__link'} aria-current={current ? 'page' : undefined}>
                    {s.label}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
        <div class="topbar__status" role="status" aria-live="polite">
          {status === 'reconnecting' && (
            <span class="conn conn--down" data-testid="socket-down" title="The live connection to the server is down; retrying">
              <span aria-hidden="true">●</span> Disconnected — reconnecting…
            </span>
          )}
        </div>
      </div>
    </header>
  );
}
