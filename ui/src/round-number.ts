/** Numbers in data views: rounded for display, the full value kept for hover and copy (`components/data-table.tsx`). */
/**
 * A data cell's number, rounded for display (the full value goes in its title and is what
 * a copy takes): whole numbers as they are; from 1 up, 2 decimals; below 1, 3 significant
 * digits; trailing zeros dropped, no grouping. `12345.678912` → `12345.68`, `0.000123456` → `0.000123`.
 */
export function roundForDisplay(n: number): string {
  if (!Number.isFinite(n) || Number.isInteger(n)) return String(n);
  return String(Math.abs(n) >= 1 ? Number(n.toFixed(2)) : Number(n.toPrecision(3)));
}
