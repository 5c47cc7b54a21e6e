/**
 * Where a horde's steps and edges go in its graph: left to right in layers by the longest
 * path of forward edges from the first pipeline step; loop-back edges curve underneath,
 * forward edges that would cross a step in between curve over the top.
 * Pure: names in, coordinates out.
 */
import type { EdgeWhen, HordeDetail, HordeEdge } from './types.js';

/** What the graph draws: a horde's steps (name and kind) and edges — of a loaded horde, or of a Rookery draft. */
export type GraphHorde = Pick<HordeDetail, 'id' | 'displayName' | 'pipeline' | 'edges'> & { steps: ReadonlyArray<{ name: string; kind: string }> };

export const NODE_W = 156;
export const NODE_H = 48;
const GAP_X = 72;
const GAP_Y = 26;
const PAD = 20;
const BACK_DEPTH = 34;
const BACK_STEP = 22;

export interface NodeBox { name: string; layer: number; row: number; x: number; y: number }

export interface EdgeLine {
  from: string;
  to: string;
  when: EdgeWhen;
  back: boolean;
  implicit: boolean;
  /** An SVG path. */
  d: string;
  label: string | null;
  labelX: number;
  labelY: number;
}

export interface GraphLayout { width: number; height: number; nodes: NodeBox[]; edges: EdgeLine[] }

export function layoutGraph(pipeline: readonly string[], edges: readonly HordeEdge[]): GraphLayout {
  const index = new Map(pipeline.map((name, i) => [name, i]));
  const known = edges.filter((e) => index.has(e.from) && index.has(e.to));
  const isForward = (e: HordeEdge) => !e.back && index.get(e.to)! > index.get(e.from)!;

  // Longest path: forward edges only go to later pipeline steps, so one pass in order suffices.
  const layer = new Map(pipeline.map((name) => [name, 0]));
  for (const name of pipeline) {
    for (const e of known) {
      if (e.from === name && isForward(e)) layer.set(e.to, Math.max(layer.get(e.to)!, layer.get(name)! + 1));
    }
  }

  const columns: string[][] = [];
  for (const name of pipeline) (columns[layer.get(name)!] ??= []).push(name);
  const maxRows = Math.max(1, ...columns.map((c) => c?.length ?? 0));
  const rowsHeight = maxRows * (NODE_H + GAP_Y) - GAP_Y;

  const place = (top: number) => {
    const boxes = new Map<string, NodeBox>();
    columns.forEach((names, l) => {
      const offset = ((maxRows - names.length) * (NODE_H + GAP_Y)) / 2;
      names.forEach((name, row) => {
        boxes.set(name, { name, layer: l, row, x: PAD + l * (NODE_W + GAP_X), y: top + offset + row * (NODE_H + GAP_Y) });
      });
    });
    return boxes;
  };
  // A forward edge whose straight line would cross a step in a layer between its ends goes over the top.
  const crosses = (boxes: Map<string, NodeBox>, e: HordeEdge) => {
    const a = boxes.get(e.from)!, b = boxes.get(e.to)!;
    const y1 = a.y + NODE_H / 2, y2 = b.y + NODE_H / 2;
    return [...boxes.values()].some((n) => {
      if (n.layer <= a.layer || n.layer >= b.layer) return false;
      const t = (n.layer - a.layer) / (b.layer - a.layer);
      const y = y1 + (y2 - y1) * t;
      return y > n.y - 8 && y < n.y + NODE_H + 8;
    });
  };
  const over = new Set(known.filter((e) => isForward(e) && crosses(place(PAD), e)));
  const top = PAD + (over.size > 0 ? BACK_DEPTH + over.size * BACK_STEP - 10 : 0);
  const byName = place(top);
  const nodes = [...byName.values()];

  const lines: EdgeLine[] = [];
  let backCount = 0;
  let overCount = 0;
  for (const e of known) {
    const a = byName.get(e.from)!;
    const b = byName.get(e.to)!;
    const base = { from: e.from, to: e.to, when: e.when, back: !isForward(e), implicit: e.implicit };
    if (over.has(e)) {
      const height = top - BACK_DEPTH - overCount * BACK_STEP;
      overCount++;
      const x1 = a.x + NODE_W / 2 + 12, y1 = a.y, x2 = b.x + NODE_W / 2 - 12, y2 = b.y;
      const c1: [number, number] = [x1, height], c2: [number, number] = [x2, height];
      const mid = cubicMid([x1, y1], c1, c2, [x2, y2]);
      lines.push({
        ...base, d: `M${x1} ${y1} C${c1[0]} ${c1[1]} ${c2[0]} ${c2[1]} ${x2} ${y2}`,
        label: e.when === 'pass' ? null : e.when, labelX: mid[0], labelY: mid[1],
      });
    } else if (isForward(e)) {
      const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x, y2 = b.y + NODE_H / 2;
      const dx = Math.max(24, (x2 - x1) / 2);
      const mid = cubicMid([x1, y1], [x1 + dx, y1], [x2 - dx, y2], [x2, y2]);
      lines.push({
        ...base, d: `M${x1} ${y1} C${x1 + dx} ${y1} ${x2 - dx} ${y2} ${x2} ${y2}`,
        label: e.when === 'pass' ? null : e.when, labelX: mid[0], labelY: mid[1],
      });
    } else {
      const depth = top + rowsHeight + BACK_DEPTH + backCount * BACK_STEP;
      backCount++;
      const x1 = a.x + NODE_W / 2 + 12, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2 - 12, y2 = b.y + NODE_H;
      const c1: [number, number] = [x1, depth], c2: [number, number] = [x2, depth];
      const mid = cubicMid([x1, y1], c1, c2, [x2, y2]);
      lines.push({
        ...base, d: `M${x1} ${y1} C${c1[0]} ${c1[1]} ${c2[0]} ${c2[1]} ${x2} ${y2}`,
        label: `${e.when} ×${e.maxLoops ?? '?'}`, labelX: mid[0], labelY: mid[1],
      });
    }
  }

  const width = PAD * 2 + Math.max(1, columns.length) * (NODE_W + GAP_X) - GAP_X;
  // A curve reaches three quarters of the way to its control points; its label is 18 high.
  const below = backCount > 0 ? 0.75 * (BACK_DEPTH + (backCount - 1) * BACK_STEP) + 10 : 0;
  const height = top + rowsHeight + below + PAD;
  return { width, height, nodes, edges: lines };
}

/** The point of a cubic Bézier curve at t = 0.5. */
function cubicMid(p0: [number, number], p1: [number, number], p2: [number, number], p3: [number, number]): [number, number] {
  return [
    0.125 * p0[0] + 0.375 * p1[0] + 0.375 * p2[0] + 0.125 * p3[0],
    0.125 * p0[1] + 0.375 * p1[1] + 0.375 * p2[1] + 0.125 * p3[1],
  ];
}
