/**
 * `#/plugins`: every plugin found under the data folder's `plugins/` — its state (pending,
 * granted, invalid), where it came from, its permissions in plain words, its tools, its
 * failures with their phase, its process's counters — with Grant (after a confirmation that
 * lists the permissions), Revoke, each plugin's audit, and Rescan; and how they are confined
 * on the server's machine (a warning when bubblewrap is missing: Node's permission model only).
 * Read again when the server says they changed (the websocket's `changed` frames): a grant,
 * a rescan, a process started or failed as agents call it. A rescan shows a bar (`work` frames).
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import type { PluginStatus } from '../types';
import { PluginCard } from '../components/plugin-card';
import { Empty, ErrorBox, Loading } from '../components/status';
import { WorkProgress } from '../components/work-progress';
import { plural } from '../format';
import { useChanged } from '../hooks/use-changed';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';

/** How the server confines plugins (the same for each): a warning without bubblewrap, a plain line with it. */
function Confinement({ confinement }: { confinement: PluginStatus['confinement'] }) {
  if (confinement.kind === 'bwrap') {
    return <p class="muted" data-testid="plugins-confinement" data-kind="bwrap">Each plugin runs in {confinement.detail}.</p>;
  }
  return (
    <div class="notice notice--warn" role="note" data-testid="plugins-confinement" data-kind="node">
      <p><strong>Plugins are confined by Node&apos;s permission model only:</strong> they can open sockets (and so reach this server and the
        network on their own) and send signals to your processes. Install bubblewrap (<code>apt-get install bubblewrap</code>), then restart
        kowalski, to run each plugin in its own network and PID namespaces with only its own files mounted.</p>
      <p class="muted">{confinement.detail}</p>
    </div>
  );
}

export function PluginsScreen() {
  const { api } = useServices();
  const list = useResource(() => api.plugins(), [api]);
  const [scanning, setScanning] = useState(false);
  const [scanNote, setScanNote] = useState<string | null>(null);
  const [scanError, setScanError] = useState<ApiError | null>(null);
  useChanged('plugins', list.refresh);

  const rescan = (): void => {
    setScanning(true);
    setScanNote(null);
    setScanError(null);
    api.rescanPlugins()
      .then((found) => setScanNote(`Found ${plural(found.length, 'plugin')}.`), (err: unknown) => setScanError(asApiError(err)))
      .finally(() => {
        setScanning(false);
        list.refresh();
      });
  };

  return (
    <section aria-labelledby="plugins-title">
      <div class="page-head page-head--row">
        <div>
          <h1 id="plugins-title">Plugins</h1>
          <p class="muted">Tools from third parties. Their tools are offered to your agents only once you grant what they ask for, and they run where they cannot reach further (docs/plugins.md).</p>
        </div>
        <div class="actions">
          <button type="button" class="btn" onClick={rescan} disabled={scanning} aria-busy={scanning} data-testid="plugins-rescan"
            title="Look for plugins again (after installing, updating or removing one)">
            {scanning ? 'Rescanning…' : 'Rescan'}
          </button>
        </div>
      </div>
      <WorkProgress op="plugins-rescan" running={scanning} />
      {scanNote !== null && <p class="success" role="status" data-testid="plugins-rescan-note">{scanNote}</p>}
      {scanError !== null && <ErrorBox error={scanError} title="Could not rescan" />}
      {list.data === undefined && list.loading && <Loading label="Loading the plugins…" />}
      {list.data === undefined && list.error !== undefined && <ErrorBox error={list.error} title="Could not load the plugins" onRetry={list.reload} />}
      {list.data !== undefined && list.data.length === 0 && (
        <Empty>
          <p data-testid="plugins-empty"><strong>No plugins found.</strong></p>
          <p>Put a plugin&apos;s folder at <code>&lt;data&gt;/plugins/local/&lt;name&gt;/</code> with its <code>kowalski-plugin.toml</code> (or
            install an npm package under <code>&lt;data&gt;/plugins/</code>), then Rescan. How to write one, with an example: docs/plugins.md.</p>
        </Empty>
      )}
      {list.data?.[0] !== undefined && <Confinement confinement={list.data[0].confinement} />}
      {list.data !== undefined && list.data.length > 0 && (
        <ul class="cards cards--wide" data-testid="plugins-list">
          {list.data.map((p) => <PluginCard key={`${p.name}:${p.root}`} plugin={p} onChanged={list.refresh} />)}
        </ul>
      )}
    </section>
  );
}
