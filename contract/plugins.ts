/** Plugins as `GET /api/plugins` and `kowalski plugins` show them (docs/plugins.md). */

/** What a plugin may do; granted as a whole. Paths are absolute (`~/` expanded), hosts lower-case. */
export interface PluginPermissions {
  /** Folders and files it may read besides its own folder (`fs.read`). */
  fsRead: string[];
  /** Folders and files it may write besides its data folder (`fs.write`). */
  fsWrite: string[];
  /** Hosts its `fetch` (the engine's, SSRF-safe) may reach (`net`). */
  net: string[];
  /** Environment variables it sees (`env`); it sees no other. */
  env: string[];
  /** May start child processes and workers (`exec`). */
  exec: boolean;
}

/** Where a plugin failed: found, its manifest checked, its grant, its module loaded, its process started, a call. */
export type PluginPhase = 'discover' | 'validate' | 'permission' | 'load' | 'start' | 'call';

export interface PluginFailure {
  phase: PluginPhase;
  /** The error's code (`KW_ERR_PLUGIN_MANIFEST`…; `KW_ERR_INTERNAL` for what had none). */
  code: string;
  message: string;
  /** Epoch ms. */
  at: number;
}

/** Where a plugin was found: an npm package under `<data>/plugins/node_modules`, or a plain folder. */
export type PluginSource = 'package' | 'folder';

/**
 * `pending`: found and valid, waiting for the operator's grant (or its grant no longer matches its version
 * and permissions); `granted`: its tools are offered; `invalid`: it could not be read or checked (see failures).
 */
export type PluginState = 'pending' | 'granted' | 'invalid';

/**
 * How plugins' processes are confined on this machine: `bwrap`, in bubblewrap (their own network
 * and PID namespaces, only their paths mounted) and Node's permission model; `node`, Node's
 * permission model only (they can open sockets and send signals). `detail` says which bwrap, or why none.
 */
export interface PluginConfinement {
  kind: 'bwrap' | 'node';
  detail: string;
}

/** One plugin as `GET /api/plugins` and `kowalski plugins` show it. */
export interface PluginStatus {
  name: string;
  /** Null when the manifest could not be read. */
  version: string | null;
  description: string | null;
  source: PluginSource;
  /** Its folder (real path). */
  root: string;
  state: PluginState;
  /** Null when invalid. */
  permissions: PluginPermissions | null;
  /** The permissions in plain words ("read files in ~/Documents", "reach api.example.com"); empty when invalid. */
  permissionsText: string[];
  /** sha256 of the canonical permissions (what a grant is keyed by, with name and version). */
  permissionsHash: string | null;
  /** The tools as agents see them (`<plugin>__<tool>`). */
  tools: { name: string; description: string }[];
  adapters: { name: string; description: string }[];
  /** Unknown keys and clashes, with what and where. */
  warnings: string[];
  failures: PluginFailure[];
  /** The grant in force: who and when (null unless granted). */
  grantedBy: string | null;
  grantedAt: number | null;
  /** The process's counters, once started. */
  process: { running: boolean; restarts: number; failures: number } | null;
  /** How its process is (or would be) confined: the same for every plugin of this engine. */
  confinement: PluginConfinement;
}

/** `GET /api/plugins/:name`'s `audit`: one grant or revoke, oldest first. */
export interface PluginAuditEntry {
  action: 'grant' | 'revoke';
  version: string;
  permissionsHash: string;
  by: string;
  at: number;
}
