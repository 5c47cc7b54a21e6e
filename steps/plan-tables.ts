/**
 * `{{table:<input>}}` in a SQL plan: the table the data tool serves from the run's input
 * `<input>` (its files are under `inputs/<input>/`), so a horde can ship fixed SQL over
 * files whose names only the user knows (`~/Trading/My stocks.csv` is served as
 * `my_stocks`). The input must give exactly one table; none or several is
 * KW_ERR_INPUT_INVALID naming what it gave. Pure.
 */
import { KowalskiError } from '../core/index.js';
import type { TableInfo } from '../agents/index.js';

const PLACEHOLDER = /\{\{\s*table:([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*\}\}/g;

/** The input ids the plan's placeholders name, each once, in order of first use. */
export function tablePlaceholders(plan: string): string[] {
  return [...new Set(Array.from(plan.matchAll(PLACEHOLDER), (m) => m[1] ?? ''))];
}

/** The plan with every `{{table:<input>}}` replaced by that input's one table. */
export function expandTablePlaceholders(plan: string, tables: readonly TableInfo[], where: { file: string }): string {
  const names = new Map<string, string>();
  for (const id of tablePlaceholders(plan)) {
    const from = tables.filter((t) => t.source.startsWith(`${id}/`));
    if (from.length !== 1) {
      const gave = from.length === 0 ? 'no table (no spreadsheet file the data tool could read)'
        : `${from.length} tables (${from.map((t) => `${t.name} from ${t.source}${t.sheet === undefined ? '' : `, sheet ${t.sheet}`}`).join('; ')})`;
      throw new KowalskiError('KW_ERR_INPUT_INVALID', `input \`${id}\` gave ${gave}; the plan's {{table:${id}}} needs exactly one`, { where });
    }
    names.set(id, from[0]!.name);
  }
  return plan.replace(PLACEHOLDER, (_, id: string) => names.get(id) ?? '');
}
