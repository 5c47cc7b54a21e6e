/** The shell: top bar, recovery notice, the screen for the route, the token prompt. */
import { useEffect, useRef } from 'preact/hooks';
import type { TokenPrompter } from './auth';
import { Nav } from './components/nav';
import { RecoveryBanner } from './components/recovery-banner';
import { TokenPrompt } from './components/token-prompt';
import { useRoute } from './router';
import type { Route } from './router';
import { AgentScreen } from './screens/agent';
import { AgentsScreen } from './screens/agents';
import { AdaptersScreen } from './screens/adapters';
import { ChatScreen } from './screens/chat';
import { HordeScreen } from './screens/horde';
import { HordesScreen } from './screens/hordes';
import { ImportScreen } from './screens/import';
import { NodesScreen } from './screens/nodes';
import { NotFoundScreen } from './screens/not-found';
import { PluginsScreen } from './screens/plugins';
import { RookeryScreen } from './screens/rookery';
import { RunScreen } from './screens/run';
import { RunsScreen } from './screens/runs';
import { SetupScreen } from './screens/setup';
import { VaultScreen } from './screens/vault';
import { ServicesContext } from './services';
import type { Services } from './services';

export function App({ services, prompter }: { services: Services; prompter: TokenPrompter }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);
  const screenKey = route.name === 'horde' || route.name === 'run' || route.name === 'agent' || route.name === 'chat' || route.name === 'rookery' ? `${route.name}:${route.id ?? ''}${route.name === 'horde' ? `:${route.origin ?? ''}` : ''}` : route.name;

  // On navigation, move focus to the new screen so keyboard and screen reader users start there.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    main.current?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [screenKey]);

  useEffect(() => {
    document.title = `${titleOf(route)} · kowalski`;
  }, [route]);

  return (
    <ServicesContext.Provider value={services}>
      <Nav route={route} />
      <RecoveryBanner />
      <main id="main" ref={main} tabIndex={-1} class="main">
        <Screen key={screenKey} route={route} />
      </main>
      <TokenPrompt prompter={prompter} />
    </ServicesContext.Provider>
  );
}

function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'hordes': return <HordesScreen />;
    case 'horde': return <HordeScreen id={route.id} origin={route.origin} />;
    case 'runs': return <RunsScreen status={route.status} horde={route.horde} />;
    case 'run': return <RunScreen id={route.id} />;
    case 'setup': return <SetupScreen />;
    case 'import': return <ImportScreen />;
    case 'agents': return <AgentsScreen />;
    case 'adapters': return <AdaptersScreen />;
    case 'plugins': return <PluginsScreen />;
    case 'nodes': return <NodesScreen />;
    case 'agent': return <AgentScreen name={route.id} />;
    case 'chat': return <ChatScreen id={route.id} />;
    case 'vault': return <VaultScreen note={route.note} />;
    case 'rookery': return <RookeryScreen id={route.id} />;
    case 'notFound': return <NotFoundScreen path={route.path} />;
  }
}

function titleOf(route: Route): string {
  switch (route.name) {
    case 'hordes': return 'Hordes';
    case 'horde': return route.id;
    case 'runs': return 'Runs';
    case 'run': return `Run ${route.id}`;
    case 'setup': return 'Setup';
    case 'import': return 'Import a bundle';
    case 'agents': return 'Agents';
    case 'adapters': return 'Adapters';
    case 'plugins': return 'Plugins';
    case 'nodes': return 'Nodes';
    case 'agent': return `Agent ${route.id}`;
    case 'chat': return route.id === undefined ? 'Chat' : `Chat ${route.id}`;
    case 'vault': return route.note === undefined ? 'Vault' : `Vault: ${route.note}`;
    case 'rookery': return route.id === undefined ? 'Rookery' : `Rookery ${route.id}`;
    case 'notFound': return 'Not found';
  }
}
