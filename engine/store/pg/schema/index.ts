/** The Postgres run store's migrations: numbered files, as SQLite's (see ../../schema/index.ts). */
import { migrationsOf } from '../../../schema/index.js';
import type { Migration } from '../../../schema/index.js';
import * as m001 from './001_init.js';
import * as m002 from './002_nodes_leases.js';
import * as m003 from './003_node_requests.js';
import * as m004 from './004_node_folders.js';
import * as m005 from './005_run_spend.js';
import * as m006 from './006_queued_firings.js';
import * as m007 from './007_chat_traces.js';
import * as m008 from './008_vault_rookery.js';
import * as m009 from './009_adapters_plugins.js';
import * as m010 from './010_chat_recall.js';

export const PG_MIGRATIONS: readonly Migration[] = migrationsOf([m001, m002, m003, m004, m005, m006, m007, m008, m009, m010]);
