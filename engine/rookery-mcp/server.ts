/**
 * The Rookery as an MCP server, with no model inside: the caller drives the interview and
 * these tools tidy, check and write its draft. Tool names and arguments are those of 1.x
 * (`rookery_example_draft`, `rookery_validate_draft`, `rookery_parse_draft`,
 * `rookery_give_birth`), plus `rookery_list_step_kinds` and `rookery_list_hordes`. A result
 * is one text item of JSON (as 1.x) and the same object as `structuredContent`; a refusal
 * is a tool result with `isError: true` whose text is `[KW_ERR_…] message`.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { KowalskiError, toPlainError } from '../../core/index.js';
import { formatProblems } from '../horde/index.js';
import { checkDraft, exampleDraft, listHordeFolders, parseDraft, stepKindList, writeDraft } from '../rookery/index.js';
import type { DraftCheckOptions, DraftProblem } from '../rookery/index.js';
import { confinedFolder } from './output-root.js';

export interface RookeryServerOptions extends DraftCheckOptions {
  /** Where `rookery_give_birth` writes `<id>/` and `rookery_list_hordes` looks when the call names no `output_root`. */
  outputRoot: string;
  /** The version the server reports in the MCP handshake. */
  version: string;
}

const draftArg = z.union([z.object({}).passthrough(), z.string()])
  .describe('a horde draft: id, display_name, description, steps (or the 1.x penguins + pipeline), edges, triggers; call rookery_example_draft for the shape. A string is read as rookery_parse_draft reads text');
const outputRootArg = z.string().max(1000).optional().describe('a folder inside the server\'s --output-root to use instead of it: relative to it, existing, no .. and no link leading out (else KW_ERR_PATH_ESCAPES)');

async function answer(work: () => Promise<object> | object): Promise<CallToolResult> {
  try {
    const result = await work();
    return { structuredContent: result as Record<string, unknown>, content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
  } catch (err) {
    const plain = toPlainError(err);
    return { isError: true, content: [{ type: 'text', text: `[${plain.code}] ${plain.message}` }] };
  }
}

/** The errors among `problems` as 1.x gave them: one string, or null when there are none. */
function errorText(problems: readonly DraftProblem[]): string | null {
  const errors = problems.filter((p) => p.severity === 'error');
  return errors.length === 0 ? null : formatProblems(errors);
}

/** A draft argument: an object as it is; text (some clients send the draft as a JSON string) read by parseDraft. */
function draftOf(arg: Record<string, unknown> | string): unknown {
  if (typeof arg !== 'string') return arg;
  const parsed = parseDraft(arg);
  if (!parsed.ok) throw new KowalskiError('KW_ERR_DRAFT_INVALID', `the draft is text that holds no draft: ${parsed.error}`);
  return parsed.draft;
}

/** A call's `output_root`: a folder inside the server's output root (confinedFolder). */
function rootOf(given: string | undefined, root: string): Promise<string> {
  return confinedFolder(root, given, 'output_root');
}

/** A new MCP server (not yet connected). */
export function createRookeryServer(options: RookeryServerOptions): McpServer {
  const { outputRoot, version } = options;
  const check: DraftCheckOptions = {};
  if (options.knownKinds !== undefined) check.knownKinds = options.knownKinds;
  if (options.knownTools !== undefined) check.knownTools = options.knownTools;
  const server = new McpServer({ name: 'kowalski-rookery', version }, { capabilities: { tools: {} } });
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
  server.registerTool('rookery_example_draft', {
    title: 'Example draft',
    description: 'A small valid horde draft (ingest → process → deliver) to start from and to learn the shape from.',
    inputSchema: {},
    annotations: readOnly,
  }, () => answer(() => ({ draft: exampleDraft() })));
  server.registerTool('rookery_validate_draft', {
    title: 'Validate a draft',
    description: 'Tidy a draft (kebab-case names, defaults, the 1.x shape) and check it with the engine\'s own loader. Returns { ok, errors (null or one string), problems (each with code, file, key, step, message), draft (the tidied draft) }.',
    inputSchema: { draft: draftArg },
    annotations: readOnly,
  }, (args) => answer(async () => {
    const c = await checkDraft(draftOf(args.draft), check);
    return { ok: c.ok, errors: errorText(c.problems), problems: c.problems, draft: c.draft };
  }));
  server.registerTool('rookery_parse_draft', {
    title: 'Parse a draft from text',
    description: 'Read a draft from text: a JSON object, a TOML document ([[steps]] or [[penguins]], [[edges]], [[triggers]]), or the last fenced ```json / ```toml block of an assistant\'s message. Returns { ok: true, draft } or { ok: false, error }.',
    inputSchema: { text: z.string().describe('the text holding the draft') },
    annotations: readOnly,
  }, (args) => answer(() => parseDraft(args.text)));
  server.registerTool('rookery_give_birth', {
    title: 'Write the horde',
    description: 'Check a draft and write it as a horde folder <output_root>/<id>/ (horde.md, agents/, prompts/, README.md), atomically, then load it again. Refused when the draft has errors, or when the folder exists and overwrite is not true. Returns { ok, horde_id, horde_root, validate_ok, validate_errors, problems }.',
    inputSchema: {
      draft: draftArg,
      output_root: outputRootArg,
      overwrite: z.boolean().optional().describe('replace an existing <output_root>/<id>/ (default false)'),
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  }, (args) => answer(async () => {
    const born = await writeDraft(draftOf(args.draft), { ...check, outputRoot: await rootOf(args.output_root, outputRoot), overwrite: args.overwrite === true });
    return { ok: born.validate_ok, horde_id: born.horde_id, horde_root: born.horde_root, validate_ok: born.validate_ok, validate_errors: errorText(born.problems), problems: born.problems };
  }));
  server.registerTool('rookery_list_step_kinds', {
    title: 'List step kinds',
    description: 'The step kinds a draft may use, each with whether it asks a model and what it does.',
    inputSchema: {},
    annotations: readOnly,
  }, () => answer(() => ({ kinds: stepKindList() })));
  server.registerTool('rookery_list_hordes', {
    title: 'List hordes',
    description: 'The horde folders under the output root: id, display_name, path, and whether each loads without errors.',
    inputSchema: { output_root: outputRootArg },
    annotations: readOnly,
  }, (args) => answer(async () => ({ hordes: await listHordeFolders(await rootOf(args.output_root, outputRoot)) })));
  return server;
}
