/** Our messages and tools → the Gemini API's contents, system instruction and function declarations. */
import type { Content, Part, Tool as GeminiTool } from '@google/genai';
import type { ChatMessage, ToolCall, ToolSpec } from '../types.js';

/**
 * Gemini 3 refuses a model turn whose function calls lost their thought signature (a
 * history written before, or by another provider); this documented value tells it to
 * skip the check. A signature the model gave is always sent back as it came.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

function callParts(calls: ToolCall[]): Part[] {
  const signed = calls.some((c) => c.signature !== undefined);
  return calls.map((c, i): Part => {
    const signature = c.signature ?? (!signed && i === 0 ? SKIP_SIGNATURE : undefined);
    return { functionCall: { id: c.id, name: c.name, args: c.arguments }, ...(signature === undefined ? {} : { thoughtSignature: signature }) };
  });
}

/**
 * System messages go to `systemInstruction`; the assistant is the `model` role; a tool
 * result is a `functionResponse` part of a user turn (`output`, or `error` when it
 * failed). Adjacent turns of the same role are merged, because Gemini wants every
 * response to a turn's function calls in the one user turn that follows it.
 */
export function toGeminiContents(messages: ChatMessage[]): { systemInstruction: string | undefined; contents: Content[] } {
  const system: string[] = [];
  const out: Array<{ role: 'user' | 'model'; parts: Part[] }> = [];
  const push = (role: 'user' | 'model', parts: Part[]): void => {
    if (parts.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  const text = (t: string): Part[] => (t === '' ? [] : [{ text: t }]);
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        system.push(m.content);
        break;
      case 'user':
        push('user', text(m.content));
        break;
      case 'assistant':
        push('model', [...text(m.content), ...callParts(m.toolCalls ?? [])]);
        break;
      case 'tool':
        push('user', [{ functionResponse: { id: m.toolCallId, name: m.toolName, response: m.isError === true ? { error: m.content } : { output: m.content } } }]);
        break;
      default: {
        const never: never = m;
        return never;
      }
    }
  }
  return { systemInstruction: system.length === 0 ? undefined : system.join('\n\n'), contents: out };
}

/** Our tools as one Gemini tool of function declarations; the schema goes as JSON Schema (`parametersJsonSchema`). */
export function toGeminiTools(tools: ToolSpec[] | undefined): GeminiTool[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.inputSchema })) }];
}
