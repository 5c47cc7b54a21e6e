/** The sandboxed runner of plugins: each plugin in its own process under Node's permission model, inside bubblewrap where the machine has it (docs/plugins.md, "How plugins are confined"). */
export { startPluginProcess, PLUGIN_DEFAULTS } from './plugin-process.js';
export type { PluginProcess, PluginProcessOptions } from './plugin-process.js';
export { hostAllowed } from './plugin-fetch.js';
export { detectSandbox, findBwrap } from './sandbox.js';
export type { Sandbox, SandboxOptions } from './sandbox.js';
export type { AdapterMethod } from './protocol.js';
