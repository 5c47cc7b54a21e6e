/**
 * Plugins: third-party tools declared in a `kowalski-plugin.toml`, found under `<data>/plugins/`,
 * offered to agents only once the operator granted the permissions they declare, each run in
 * its own child process under Node's permission model (`engine/plugins/runner/`). These are the
 * shapes the manifest reader, discovery, the grants, the runner and the API share.
 */
import type { PluginPermissions } from '../../contract/plugins.js';
export type { PluginConfinement, PluginFailure, PluginPermissions, PluginPhase, PluginSource, PluginState, PluginStatus } from '../../contract/plugins.js';

/** One `[[tools]]` entry. */
export interface PluginToolDef {
  /** `^[a-z][a-z0-9_]*$`; offered to agents as `<plugin>__<tool>` (letters, digits, `_`, `-`, at most 64: what every provider accepts; see docs/plugins.md). */
  name: string;
  description: string;
  /** A JSON schema (an object) of the tool's arguments. */
  input: Record<string, unknown>;
  /** The module, relative to the plugin's folder and inside it. */
  entry: string;
  /** The function the module exports under this name. */
  export: string;
}

/** One `[[adapters]]` entry: its module's `export` is an object `{ receive, send }`, run in the plugin's process for a `type = "plugin"` adapter (docs/adapters.md). */
export interface PluginAdapterDef {
  name: string;
  description: string;
  entry: string;
  export: string;
}

/** A `kowalski-plugin.toml` that passed every check. */
export interface PluginManifest {
  manifestVersion: 1;
  name: string;
  version: string;
  description: string;
  author: string;
  license: string;
  /** The semver range of kowalski versions it works with (checked against ours). */
  kowalski: string;
  permissions: PluginPermissions;
  tools: PluginToolDef[];
  adapters: PluginAdapterDef[];
}

