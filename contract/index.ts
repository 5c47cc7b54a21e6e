/**
 * The contract between the server and the app: the shapes the HTTP API and the websocket
 * send and take (docs/api.md). Types only: the server (api/, engine/ and below) and the app
 * (ui/) both import them with `import type`, so the app's bundle holds nothing of the server.
 * It imports nothing of the project.
 */
export type * from './adapters.js';
export type * from './budget.js';
export type * from './chat.js';
export type * from './data-files.js';
export type * from './errors.js';
export type * from './frames.js';
export type * from './health.js';
export type * from './horde.js';
export type * from './nodes.js';
export type * from './plugins.js';
export type * from './progress.js';
export type * from './rookery.js';
export type * from './runs.js';
export type * from './setup.js';
export type * from './team.js';
export type * from './traces.js';
export type * from './triggers.js';
export type * from './vault.js';
