/**
 * A plugin tool's `input` schema, checked as the tool registry will use it: valid against
 * JSON Schema's meta-schema, nested at most MAX_DEPTH levels, every `$ref` local (`#` or a
 * `#/…` pointer) and resolvable, no chain of `$ref`s longer than MAX_REF_HOPS or looping
 * back on itself, and compiled once. Ajv's `validateSchema` resolves no `$ref`, and its
 * `compile` recurses without end on a `$ref` that leads (directly or through other `$ref`s)
 * back to itself: "Maximum call stack size exceeded", which surfaced at every call of the
 * tool as KW_ERR_INTERNAL (agents/tool-registry.ts compiles it on first use). A `$ref` to
 * `#` inside a property (a tree) is fine: it reaches a schema.
 */
import type { Ajv } from 'ajv';
import { messageOf } from '../../core/index.js';

/** Levels of objects and arrays a schema may nest. */
export const MAX_DEPTH = 32;
/** `$ref`s followed one to the next before a schema must be reached. */
export const MAX_REF_HOPS = 16;

/** Keywords whose values are data, not schemas: a `$ref` in them is not one. */
const DATA_KEYS = new Set(['const', 'enum', 'default', 'examples']);
/** Ways of naming a schema this check does not follow, so it refuses them. */
const UNFOLLOWED = ['$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'];

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What `#/a/b~1c` points at in `root`, or undefined. */
function resolvePointer(root: Json, ref: string): Json {
  if (ref === '#') return root;
  let at: Json = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at) && /^\d+$/.test(key)) at = at[Number(key)];
    else if (isObject(at) && Object.hasOwn(at, key)) at = at[key];
    else return undefined;
  }
  return at;
}

/** Every `$ref` (with where it is), and the first problem of nesting or of a keyword not followed. */
function walk(schema: Json): { refs: { at: string; ref: string }[]; problem?: string } {
  const refs: { at: string; ref: string }[] = [];
  // Breadth first, so problems are reported in the order the schema is written, nearest the top first.
  const queue: { v: Json; at: string; depth: number }[] = [{ v: schema, at: '#', depth: 1 }];
  for (let i = 0; i < queue.length; i += 1) {
    const { v, at, depth } = queue[i]!;
    if (!isObject(v) && !Array.isArray(v)) continue;
    if (depth > MAX_DEPTH) return { refs, problem: `nests deeper than ${MAX_DEPTH} levels (at ${at})` };
    if (Array.isArray(v)) {
      v.forEach((item, i) => queue.push({ v: item, at: `${at}/${i}`, depth: depth + 1 }));
      continue;
    }
    for (const [key, value] of Object.entries(v)) {
      if (typeof value === 'string' && key === '$ref') refs.push({ at, ref: value });
      else if (typeof value === 'string' && UNFOLLOWED.includes(key)) return { refs, problem: `uses ${key} (at ${at}), which a plugin's input schema may not: name shared parts under $defs and point at them with "$ref": "#/$defs/<name>"` };
      else if (!DATA_KEYS.has(key)) queue.push({ v: value, at: `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth: depth + 1 });
    }
  }
  return { refs };
}

/** Why the schema cannot be used, or undefined when it can (it was valid and compiled). */
export function inputSchemaProblem(ajv: Ajv, schema: Record<string, unknown>): string | undefined {
  if (!ajv.validateSchema(schema)) return `is not a valid JSON schema: ${ajv.errorsText(ajv.errors)}`;
  const { refs, problem } = walk(schema);
  if (problem !== undefined) return problem;
  for (const { at, ref } of refs) {
    const chain = [ref];
    let next = ref;
    for (;;) {
      if (next !== '#' && !next.startsWith('#/')) return `has "$ref": ${JSON.stringify(next)} (at ${at}): only "#" and "#/…" pointers into the schema itself are followed`;
      const target = resolvePointer(schema, next);
      if (target === undefined) return `has "$ref": ${JSON.stringify(next)} (at ${at}), which points at nothing in the schema`;
      const onward = isObject(target) && typeof target.$ref === 'string' ? target.$ref : undefined;
      if (onward === undefined) break;
      if (chain.includes(onward)) return `has a $ref loop that never reaches a schema (at ${at}): ${[...chain, onward].join(' → ')}`;
      chain.push(onward);
      if (chain.length > MAX_REF_HOPS) return `has a chain of more than ${MAX_REF_HOPS} $refs (at ${at}): ${chain.slice(0, 4).join(' → ')} → …`;
      next = onward;
    }
  }
  try {
    ajv.compile(schema);
  } catch (err) {
    return `cannot be compiled: ${messageOf(err)}`;
  }
  return undefined;
}
