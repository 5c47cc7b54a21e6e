/** A trigger as the API, the app and the CLI show it. */
export type { TriggerView } from '../../contract/triggers.js';

