/**
 * Tool names through the real Anthropic, OpenAI and Gemini clients, against fake servers
 * that refuse the names the real APIs refuse (testkit/tool-name-rules.ts): an MCP tool
 * (`everything.echo`, from the reference server over stdio), a name that starts with a
 * digit and holds a colon, and one of 80 characters are offered under names every provider
 * accepts, called by the model under those names, and run under their own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { McpManager, createToolRegistry, runToolLoop, toolWireName } from '../../agents/index.js';
import { createProvider } from '../../agents/providers/index.js';
import type { ModelRef, ProviderSettings, Tool, ToolSpec } from '../../agents/index.js';
import { startFakeAnthropic, startFakeOpenAI } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { cleanups } from '../../testkit/cleanup.js';
import { startFakeGemini } from '../support/fake-gemini.js';
import { EVERYTHING } from '../support/mcp.js';

const KEY = 'sk-test';
const GUARD_MS = 30_000;
const LONG = `reports.${'quarterly_revenue_by_region_'.repeat(3)}`;

interface Case {
  ref: ModelRef;
  start(script: FakeScript): Promise<FakeModelServer>;
  settings(url: string): ProviderSettings;
  /** A name the real API refuses. */
  refused: string;
  /** The names the request offered, as the provider's wire format holds them. */
  offered(body: any): string[];
}

const base = { ollama: { host: 'http://127.0.0.1:9' }, anthropic: {}, timeoutMs: 10_000, maxRetries: 0, retryBaseMs: 1 };
const CASES: Case[] = [
  {
    ref: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    start: (script) => startFakeAnthropic(script, { apiKey: KEY }),
    settings: (url) => ({ ...base, anthropic: { apiKey: KEY, baseUrl: url } }),
    refused: 'everything.echo',
    offered: (body) => (body.tools ?? []).map((t: any) => t.name),
  },
  {
    ref: { provider: 'openai', model: 'gpt-4o-mini' },
    start: (script) => startFakeOpenAI(script, { apiKey: KEY }),
    settings: (url) => ({ ...base, openai: { baseUrl: url, apiKey: KEY } }),
    refused: 'everything.echo',
    offered: (body) => (body.tools ?? []).map((t: any) => t.function.name),
  },
  {
    ref: { provider: 'gemini', model: 'gemini-2.5-flash' },
    start: (script) => startFakeGemini(script, { apiKey: KEY }),
    settings: (url) => ({ ...base, gemini: { apiKey: KEY, baseUrl: url } }),
    refused: '9lives:count',
    offered: (body) => (body.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((d: any) => d.name)),
  },
];

/** An in-process tool under a name no provider takes as it is; it answers with its own name. */
function oddTool(name: string): Tool {
  return {
    spec: { name, description: `answers "${name} ran"`, inputSchema: { type: 'object', properties: {}, additionalProperties: false } },
    call: () => Promise.resolve({ content: `${name} ran` }),
  };
}

async function serverFor(t: TestContext, c: Case, script: FakeScript): Promise<FakeModelServer> {
  const server = await c.start(script);
  cleanups(t)(() => server.close());
  return server;
}

for (const c of CASES) {
  describe(`${c.ref.provider}: tool names`, () => {
    test(`the fake refuses a name the real API refuses (${c.refused}), as a request error`, async (t) => {
      const server = await serverFor(t, c, [{ text: 'never sent' }]);
      const provider = createProvider(c.ref, c.settings(server.url));
      const tools: ToolSpec[] = [{ name: c.refused, description: 'echo', inputSchema: { type: 'object' } }];
      await assert.rejects(provider.chat({ model: c.ref.model, messages: [{ role: 'user', content: 'hi' }], tools }), (err: unknown) => {
        assert.ok(err instanceof KowalskiError, String(err));
        assert.equal(err.code, 'KW_ERR_MODEL_REQUEST', err.message);
        assert.match(err.message, /name/);
        assert.equal(server.requests.length, 1, 'asked once: a refused request is not retried');
        return true;
      });
    });

    test('an MCP tool, a name with a leading digit and a colon, and an 80-character name are called and run under their own names', async (t) => {
      const manager = new McpManager([{ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING], env: {}, timeoutMs: GUARD_MS, connectTimeoutMs: GUARD_MS }]);
      cleanups(t)(() => manager.close());
      const registry = createToolRegistry({ builtins: [oddTool('9lives:count'), oddTool(LONG)], mcp: manager });
      const names = ['everything.echo', '9lives:count', LONG];
      const script: FakeScript = (_body, i) => (i === 0
        ? { toolCalls: [
          { name: 'everything__echo', arguments: { message: 'hello' } },
          { name: toolWireName('9lives:count'), arguments: {} },
          { name: toolWireName(LONG), arguments: {} },
        ] }
        : { text: 'all done' });
      const server = await serverFor(t, c, script);
      const called: string[] = [];
      const result = await runToolLoop({
        provider: createProvider(c.ref, c.settings(server.url)), ref: c.ref,
        messages: [{ role: 'system', content: 'You are a test.' }, { role: 'user', content: 'Use the tools.' }],
        tools: await registry.describe(names),
        setting: 'native',
        callTool: (name, args, signal) => {
          called.push(name);
          return registry.call(name, args, signal);
        },
        signal: new AbortController().signal,
        maxIterations: 4,
        maxToolErrors: 0,
        onTrace: () => undefined,
      });
      assert.equal(result.content, 'all done');
      assert.deepEqual(called, names, 'each call ran the tool under its own name');
      assert.equal(server.requests.length, 2);
      const offered = c.offered(server.requests[0]!.body);
      assert.deepEqual(offered, ['everything__echo', '_9lives_count', toolWireName(LONG)]);
      assert.equal(toolWireName(LONG).length, 64);
      const followUp = JSON.stringify(server.requests[1]!.body);
      for (const text of ['Echo: hello', '9lives:count ran', `${LONG} ran`]) assert.ok(followUp.includes(text), `the second request carries "${text}"`);
      assert.deepEqual(c.offered(server.requests[1]!.body), offered, 'the same names on every call');
    });

    test('two tools that would reach the model under one name are refused before the model is asked', async (t) => {
      const server = await serverFor(t, c, [{ text: 'never sent' }]);
      const registry = createToolRegistry({ builtins: [oddTool('notes.search'), oddTool('notes__search')] });
      await assert.rejects(runToolLoop({
        provider: createProvider(c.ref, c.settings(server.url)), ref: c.ref,
        messages: [{ role: 'user', content: 'hi' }],
        tools: await registry.describe(['notes.search', 'notes__search']),
        setting: 'native',
        callTool: (name, args, signal) => registry.call(name, args, signal),
        signal: new AbortController().signal,
        maxIterations: 2, maxToolErrors: 0, onTrace: () => undefined,
      }), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_TOOL_NAME_CLASH' && /"notes\.search" and "notes__search"/.test(err.message));
      assert.equal(server.requests.length, 0, 'no model call was made');
    });
  });
}
