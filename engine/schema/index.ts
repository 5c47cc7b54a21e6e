/** Numbered, append-only migrations. The number is the position in this list, from 1. */
import * as m001 from './001_init.js';
import * as m002 from './002_traces.js';
import * as m003 from './003_triggers.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [m001, m002, m003].map((m, i) => ({ version: i + 1, name: m.name, sql: m.sql }));
