/**
 * Where a key of a `kowalski-plugin.toml` is written, so a problem can name its line.
 * smol-toml gives a line only for syntax errors; this follows the headers (`[permissions]`,
 * the nth `[[tools]]`) and finds the key under them. Best effort: a key written inline
 * elsewhere is named by its header's line, or by no line.
 */

const HEADER = /^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(?:#.*)?$/;

/**
 * The 1-based line of `key` under the `index`th header named `header` (or a sub-table of it);
 * `header` '' is the top level, before any header.
 */
export function lineOf(text: string, header: string, index: number, key: string): number | undefined {
  const lines = text.split('\n');
  const keyLine = new RegExp(`^\\s*(?:[A-Za-z0-9_-]+\\.)*["']?${key.replace(/[.]/g, '\\.')}["']?\\s*=`);
  let current = '';
  let seen = header === '' ? 0 : -1;
  let headerLine: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = HEADER.exec(line);
    if (h !== null) {
      current = h[1]!;
      if (current === header) {
        seen += 1;
        if (seen === index) headerLine = i + 1;
      }
      continue;
    }
    const inside = header === '' ? current === '' : (current === header || current.startsWith(`${header}.`)) && seen === index;
    if (inside && keyLine.test(line)) return i + 1;
  }
  return headerLine;
}
