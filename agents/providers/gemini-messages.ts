/** Our messages and tools → the Gemini API's contents, system instruction and function declarations. */
import type { Content, Part, Tool as GeminiTool } from '@google/genai';
import type { ChatMessage, ToolCall, ToolSpec } from '../types.js';
import { toTurns } from './turns.js';

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
 * failed); turns.ts merges the turns.
 */
export function toGeminiContents(messages: ChatMessage[]): { systemInstruction: string | undefined; contents: Content[] } {
  const text = (t: string): Part[] => (t === '' ? [] : [{ text: t }]);
  const { system, turns } = toTurns<Part>(messages, (m) => {
    switch (m.role) {
      case 'user':
        return text(m.content);
      case 'assistant':
        return [...text(m.content), ...callParts(m.toolCalls ?? [])];
      case 'tool':
        return [{ functionResponse: { id: m.toolCallId, name: m.toolName, response: m.isError === true ? { error: m.content } : { output: m.content } } }];
      default: {
        const never: never = m;
        return never;
      }
    }
  });
  return { systemInstruction: system, contents: turns.map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user', parts: t.blocks })) };
}

/** Our tools as one Gemini tool of function declarations; the schema goes as JSON Schema (`parametersJsonSchema`). */
export function toGeminiTools(tools: ToolSpec[] | undefined): GeminiTool[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.inputSchema })) }];
}
