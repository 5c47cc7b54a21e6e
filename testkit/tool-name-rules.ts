/**
 * The tool names the real APIs refuse, with the words they refuse them in, so the fake
 * servers refuse them too (a 400 before any turn is used):
 * - Anthropic: `tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
 * - OpenAI: `Invalid 'tools[N].function.name': string does not match pattern…`, at most 64;
 * - Gemini: `…function_declarations[N].name: Invalid function name. Must start with a
 *   letter or an underscore…`, at most 64.
 * Each returns the refusal for a request body, or undefined when every name is accepted.
 */

const ANTHROPIC = /^[a-zA-Z0-9_-]{1,128}$/;
const OPENAI = /^[a-zA-Z0-9_-]+$/;
const GEMINI = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

function names(list: unknown, nameOf: (tool: any) => unknown): Array<[number, unknown]> {
  return Array.isArray(list) ? list.map((tool, i): [number, unknown] => [i, nameOf(tool)]) : [];
}

export function anthropicToolNameRefusal(body: any): string | undefined {
  for (const [i, name] of names(body?.tools, (t) => t?.name)) {
    if (typeof name !== 'string' || !ANTHROPIC.test(name)) return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
  }
  return undefined;
}

export function openaiToolNameRefusal(body: any): string | undefined {
  for (const [i, name] of names(body?.tools, (t) => t?.function?.name)) {
    if (typeof name !== 'string' || !OPENAI.test(name)) {
      return `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
    }
    if (name.length > 64) return `Invalid 'tools[${i}].function.name': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`;
  }
  return undefined;
}

export function geminiToolNameRefusal(body: any): string | undefined {
  const declarations = (Array.isArray(body?.tools) ? body.tools : []).flatMap((t: any, i: number) =>
    names(t?.functionDeclarations, (d) => d?.name).map(([j, name]) => ({ at: `tools[${i}].function_declarations[${j}]`, name })));
  const bad = declarations.filter((d: { name: unknown }) => typeof d.name !== 'string' || !GEMINI.test(d.name));
  if (bad.length === 0) return undefined;
  return `* GenerateContentRequest.${bad.map((d: { at: string }) => `${d.at}.name: Invalid function name. Must start with a letter or an underscore. ` +
    'Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.').join('\n* GenerateContentRequest.')}\n`;
}
