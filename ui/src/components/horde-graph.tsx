/** A horde's steps and edges as an inline SVG (layout in graph-layout.ts). */
import { useMemo } from 'preact/hooks';
import { layoutGraph, NODE_H, NODE_W } from '../graph-layout';
import type { EdgeLine, GraphHorde } from '../graph-layout';

const MAX_NAME = 20;

export function HordeGraph({ horde }: { horde: GraphHorde }) {
  const layout = useMemo(() => layoutGraph(horde.pipeline, horde.edges), [horde.pipeline, horde.edges]);
  const kinds = new Map(horde.steps.map((s) => [s.name, s.kind]));
  const id = `g-${horde.id.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const summary = horde.edges.map((e) => `${e.from} → ${e.to} (${e.when}${e.back ? `, loops back at most ${e.maxLoops ?? '?'} times` : ''})`).join('; ');

  return (
    <div class="graph" data-testid="horde-graph">
      <svg viewBox={`0 0 ${layout.width} ${layout.height}`} width={layout.width} height={layout.height}
        role="img" aria-labelledby={`${id}-title ${id}-desc`}>
        <title id={`${id}-title`}>{`Steps of ${horde.displayName}: ${horde.pipeline.join(', ')}`}</title>
        <desc id={`${id}-desc`}>{summary === '' ? 'No edges.' : summary}</desc>
        <defs>
          {(['pass', 'fail', 'implicit'] as const).map((k) => (
            <marker key={k} id={`${id}-arrow-${k}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0 0 L10 5 L0 10 z" class={`graph__arrow graph__arrow--${k}`} />
            </marker>
          ))}
        </defs>
        {layout.edges.map((e) => <Edge key={`${e.from}>${e.to}`} edge={e} markerPrefix={`${id}-arrow`} />)}
        {layout.nodes.map((n) => (
          <g key={n.name} class="graph__node" transform={`translate(${n.x} ${n.y})`}>
            <title>{`${n.name} (${kinds.get(n.name) ?? '?'})`}</title>
            <rect width={NODE_W} height={NODE_H} rx="7" />
            <text x={NODE_W / 2} y={20} class="graph__name">{truncate(n.name)}</text>
            <text x={NODE_W / 2} y={37} class="graph__kind">{kinds.get(n.name) ?? '?'}</text>
          </g>
        ))}
        {layout.edges.filter((e) => e.label !== null).map((e) => <EdgeLabel key={`l:${e.from}>${e.to}`} edge={e} />)}
      </svg>
    </div>
  );
}

function Edge({ edge, markerPrefix }: { edge: EdgeLine; markerPrefix: string }) {
  const kind = edge.implicit ? 'implicit' : edge.when === 'fail' ? 'fail' : 'pass';
  const cls = `graph__edge graph__edge--${kind}${edge.back ? ' graph__edge--back' : ''}`;
  return <path d={edge.d} class={cls} marker-end={`url(#${markerPrefix}-${kind})`} />;
}

function EdgeLabel({ edge }: { edge: EdgeLine }) {
  const text = edge.label ?? '';
  const w = text.length * 6.6 + 10;
  return (
    <g class={`graph__label graph__label--${edge.when}`} transform={`translate(${edge.labelX} ${edge.labelY})`}>
      <rect x={-w / 2} y={-9} width={w} height={18} rx="4" />
      <text y={4}>{text}</text>
    </g>
  );
}

function truncate(name: string): string {
  return name.length > MAX_NAME ? `${name.slice(0, MAX_NAME - 1)}…` : name;
}
