/**
 * The MCP client against real servers: the reference "everything" server over stdio and
 * over Streamable HTTP, a fixture server that crashes, hangs and reports errors on
 * request, and an in-process HTTP server that checks the bearer token.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { KowalskiError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import { freePort } from '../../testkit/free-port.js';
import { EVERYTHING, managerFor, startEverythingHttp, toolNamed } from '../support/mcp.js';
import type { McpHttpServer, McpStdioServer, Tool } from '../../agents/index.js';
import { cleanups } from '../../testkit/cleanup.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const FLAKY = path.join(REPO, 'test', 'fixtures', 'mcp', 'flaky.mjs');
// Set in this process only: a stdio server must not see it (it gets a short safe list plus its own env).
const SECRET_NAME = 'KW_MCP_TEST_PARENT_SECRET';
process.env[SECRET_NAME] = 'must-not-leak';

// Generous limits where a test does not measure them: they only guard against a hung test on a busy machine.
const GUARD_MS = 30_000;

function stdio(name: string, args: string[], more: Partial<McpStdioServer> = {}): McpStdioServer {
  return { name, transport: 'stdio', command: process.execPath, args, env: {}, timeoutMs: GUARD_MS, connectTimeoutMs: GUARD_MS, ...more };
}

function flaky(name = 'flaky', more: Partial<McpStdioServer> = {}): McpStdioServer {
  return stdio(name, [FLAKY], more);
}

function httpServer(name: string, url: string, token?: string): McpHttpServer {
  return { name, transport: 'http', url, timeoutMs: GUARD_MS, connectTimeoutMs: GUARD_MS, ...(token === undefined ? {} : { token }) };
}

function ctx(signal = new AbortController().signal) {
  return { signal };
}

async function call(tool: Tool, args: Record<string, unknown> = {}): Promise<string> {
  return (await tool.call(args, ctx())).content;
}

async function failsWith(promise: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<KowalskiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof KowalskiError, `a KowalskiError, not ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message !== undefined) assert.match(err.message, message);
    return err;
  }
  assert.fail(`expected ${code}, but it succeeded`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * An MCP server over Streamable HTTP in this process. It answers only `Authorization:
 * Bearer <token>`, and never answers a message whose method is `stall`.
 */
async function startHttpMcp(t: TestContext, options: { token: string; stall?: string }): Promise<{ url: string; seen: (string | undefined)[] }> {
  const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
  mcp.registerTool('hello', { description: 'Says hello' }, () => ({ content: [{ type: 'text', text: 'hello' }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  const seen: (string | undefined)[] = [];
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    seen.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad token"}');
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      body = JSON.parse(text);
      if ((body as { method?: string }).method === options.stall) return;
    }
    await transport.handleRequest(req, res, body);
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => res.destroy(err as Error));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups(t)(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await mcp.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

describe('MCP client', { concurrency: 4 }, () => {
  it('speaks stdio to the everything server: tools as server.tool with their schemas, results as text', async (t) => {
    const manager = managerFor(t, [stdio('everything', [EVERYTHING, 'stdio'], { env: { KW_GIVEN: 'given' } })]);
    const tools = await manager.tools();
    const names = tools.map((tool) => tool.spec.name);
    for (const n of ['everything.echo', 'everything.get-sum', 'everything.get-tiny-image']) assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    const echo = tools.find((tool) => tool.spec.name === 'everything.echo')!;
    assert.equal(echo.spec.description, 'Echoes back the input string');
    assert.equal(echo.spec.inputSchema.type, 'object');
    assert.deepEqual(echo.spec.inputSchema.required, ['message']);
    assert.ok(echo.spec.inputSchema.properties?.message !== undefined);

    const output = await echo.call({ message: 'hi there' }, ctx());
    assert.equal(output.content, 'Echo: hi there');
    assert.equal(output.meta?.mcpServer, 'everything');
    assert.equal(await call(await toolNamed(manager, 'everything.get-sum'), { a: 2, b: 3 }), 'The sum of 2 and 3 is 5.');

    // an image is named and measured, never inlined
    const image = await call(await toolNamed(manager, 'everything.get-tiny-image'));
    assert.match(image, /^Here's the image you requested:\n\[image: image\/png, \d{3,} bytes omitted\]\nThe image above is the MCP logo\.$/);
    assert.doesNotMatch(image, /iVBOR/);
    // an embedded resource gives its text
    const resource = await call(await toolNamed(manager, 'everything.get-resource-reference'), { resourceType: 'Text', resourceId: 1 });
    assert.match(resource, /Returning resource reference for Resource 1:\n.+\nYou can access this resource/);
    // structured content that the text already carries is not repeated
    const weather = await call(await toolNamed(manager, 'everything.get-structured-content'), { location: 'Chicago' });
    assert.deepEqual(JSON.parse(weather), { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });

    // the child gets a safe default environment plus its configured env, nothing else of ours
    const env = JSON.parse(await call(await toolNamed(manager, 'everything.get-env'))) as Record<string, string>;
    assert.equal(env.KW_GIVEN, 'given');
    assert.equal(env[SECRET_NAME], undefined);
    assert.equal(env.PATH, process.env.PATH);
  });

  it('speaks Streamable HTTP to the everything server', async (t) => {
    const url = await startEverythingHttp(t);
    const manager = managerFor(t, [httpServer('web', url)]);
    const [echo, sum] = await manager.tools(['web.echo', 'web.get-sum']);
    assert.equal(echo?.spec.name, 'web.echo');
    assert.equal(sum?.spec.name, 'web.get-sum');
    assert.equal(await call(echo!, { message: 'over http' }), 'Echo: over http');
    assert.equal(await call(sum!, { a: 40, b: 2 }), 'The sum of 40 and 2 is 42.');
  });

  it('sends the token as a bearer header; a refused token is KW_ERR_MCP_UNAVAILABLE', async (t) => {
    const { url, seen } = await startHttpMcp(t, { token: 's3cret' });
    const good = managerFor(t, [httpServer('guarded', url, 's3cret')]);
    assert.equal(await call(await toolNamed(good, 'guarded.hello')), 'hello');
    assert.ok(seen.length >= 2, 'the handshake and the call went through the guard');
    assert.ok(seen.every((h) => h === 'Bearer s3cret'), `every request carried the token: ${JSON.stringify(seen)}`);

    const bad = managerFor(t, [httpServer('guarded', url, 'wrong')]);
    await failsWith(bad.tools(['guarded.hello']), 'KW_ERR_MCP_UNAVAILABLE', /MCP server "guarded" at http:\/\/127\.0\.0\.1:\d+\/mcp refused us \(is the token right\?\): HTTP 401: .*bad token/);
  });

  it('starts only the servers asked for, keeps one process for every call, and leaves out names it does not provide', async (t) => {
    const manager = managerFor(t, [flaky(), stdio('broken', [], { command: 'kw-no-such-mcp-server' })]);
    // "broken" cannot start: asking for flaky's tools alone must not touch it
    const tools = await manager.tools(['flaky.pid', 'flaky.no-such-tool', 'other.echo', 'web_fetch', 'flaky.echo']);
    assert.deepEqual(tools.map((tool) => tool.spec.name), ['flaky.pid', 'flaky.echo']);
    // the same Tool objects each time (callers key their schema validators on them)
    assert.equal((await manager.tools(['flaky.pid']))[0], tools[0]);
    const [first, second] = await Promise.all([call(tools[0]!), call(tools[0]!)]);
    assert.equal(first, second, 'concurrent calls share one process');
    assert.equal(await call(tools[1]!, { message: 'again' }), 'again');
    assert.equal(await call(tools[0]!), first, 'later calls reuse it');
  });

  it('a command that does not exist, or a URL where nothing listens, is KW_ERR_MCP_UNAVAILABLE naming the server', async (t) => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const manager = managerFor(t, [stdio('broken', ['x'], { command: 'kw-no-such-mcp-server' }), httpServer('gone', url)]);
    await failsWith(manager.tools(['broken.x']), 'KW_ERR_MCP_UNAVAILABLE', /MCP server "broken" cannot be started: the command "kw-no-such-mcp-server" was not found/);
    await failsWith(manager.tools(['gone.x']), 'KW_ERR_MCP_UNAVAILABLE', /MCP server "gone" at http:\/\/127\.0\.0\.1:\d+\/mcp cannot be reached: .*ECONNREFUSED/);
  });

  it('a server that dies mid-call fails that call with its stderr, and is restarted for the next one', async (t) => {
    const manager = managerFor(t, [flaky()]);
    const [pid, crash] = await manager.tools(['flaky.pid', 'flaky.crash']);
    const before = Number(await call(pid!));
    await failsWith(crash!.call({}, ctx()), 'KW_ERR_MCP_UNAVAILABLE', /MCP server "flaky" died during tools\/call "crash".*\n.*crashing on purpose/s);
    assert.equal(alive(before), false);
    const after = Number(await call(pid!));
    assert.notEqual(after, before, 'a new process answered');
    assert.ok(alive(after));
  });

  it('a server that keeps dying is not restarted more than 3 times a minute', async (t) => {
    let clock = 1_000_000;
    const manager = managerFor(t, [flaky()], { now: () => clock });
    const [echo, crash] = await manager.tools(['flaky.echo', 'flaky.crash']);
    for (let i = 0; i < 4; i++) await failsWith(crash!.call({}, ctx()), 'KW_ERR_MCP_UNAVAILABLE', /died during/);
    const err = await failsWith(call(echo!, { message: 'x' }), 'KW_ERR_MCP_UNAVAILABLE', /MCP server "flaky" keeps dying: it stopped or failed to start 4 times in the last minute/);
    assert.match(err.message, /crashing on purpose/, 'with what it said last');
    clock += 60_001;
    assert.equal(await call(echo!, { message: 'back' }), 'back');
  });

  it('a call that hangs times out with KW_ERR_MCP_TIMEOUT, the hung process is replaced, the next call works', async (t) => {
    // long enough for a quick call on a busy machine, short enough for a test
    const manager = managerFor(t, [flaky('slow', { timeoutMs: 1000 })]);
    const [pid, hang] = await manager.tools(['slow.pid', 'slow.hang']);
    const hung = Number(await call(pid!));
    const started = performance.now();
    await failsWith(hang!.call({}, ctx()), 'KW_ERR_MCP_TIMEOUT', /MCP server "slow" did not answer tools\/call "hang" within 1 s/);
    const took = performance.now() - started;
    assert.ok(took >= 990 && took < 5000, `timed out after ${took} ms`);
    const fresh = Number(await call(pid!));
    assert.notEqual(fresh, hung);
    await manager.close();
    assert.equal(alive(hung), false, 'the hung process is gone');
  });

  it("the caller's signal stops a call at once with KW_ERR_STEP_CANCELLED, and the connection is kept", async (t) => {
    const manager = managerFor(t, [flaky()]);
    const [pid, hang] = await manager.tools(['flaky.pid', 'flaky.hang']);
    const before = await call(pid!);
    const started = performance.now();
    await failsWith(hang!.call({}, ctx(AbortSignal.timeout(100))), 'KW_ERR_STEP_CANCELLED', /"flaky" was cancelled during tools\/call "hang"/);
    assert.ok(performance.now() - started < 2000);
    const reason = new KowalskiError('KW_ERR_STEP_TIMEOUT', 'the step ran out of time');
    const controller = new AbortController();
    controller.abort(reason);
    assert.equal(await hang!.call({}, ctx(controller.signal)).catch((err: unknown) => err), reason, "the caller's own reason is kept");
    assert.equal(await call(pid!), before, 'the same process still answers');
  });

  it('a tool that reports an error is KW_ERR_TOOL_FAILED with the server\'s text', async (t) => {
    const manager = managerFor(t, [flaky()]);
    const [echo, fail] = await manager.tools(['flaky.echo', 'flaky.fail']);
    await failsWith(fail!.call({}, ctx()), 'KW_ERR_TOOL_FAILED', /^flaky\.fail reported an error: the disk is full$/);
    await failsWith(echo!.call({ message: 42 }, ctx()), 'KW_ERR_TOOL_FAILED', /flaky\.echo reported an error: .*expected string/);
    assert.equal(await call(echo!, { message: 'still fine' }), 'still fine');
  });

  it('turns audio, binary resources, links and structured content into lines of text', async (t) => {
    const manager = managerFor(t, [flaky()]);
    assert.equal(await call(await toolNamed(manager, 'flaky.mixed')), [
      '[audio: audio/wav, 1000 bytes omitted]',
      '[resource file:///data.bin: application/octet-stream, 10 bytes omitted]',
      '[resource link: notes.md file:///notes.md — the notes]',
      '{"rows":3}',
    ].join('\n'));
  });

  it('a server that never answers the handshake is KW_ERR_MCP_TIMEOUT within connect_timeout_secs', async (t) => {
    const manager = managerFor(t, [stdio('mute', ['-e', 'setInterval(() => {}, 1000)'], { connectTimeoutMs: 300 })]);
    const started = performance.now();
    await failsWith(manager.tools(['mute.x']), 'KW_ERR_MCP_TIMEOUT', /MCP server "mute" did not answer within 0\.3 s \(connect_timeout_secs\)/);
    assert.ok(performance.now() - started < 3000);
  });

  it('a server that stalls after the handshake is KW_ERR_MCP_TIMEOUT within connect_timeout_secs', async (t) => {
    // the `initialized` notification is a POST the SDK does not time itself
    const { url } = await startHttpMcp(t, { token: 't', stall: 'notifications/initialized' });
    const manager = managerFor(t, [{ ...httpServer('stalled', url, 't'), connectTimeoutMs: 500 }]);
    const started = performance.now();
    await failsWith(manager.tools(['stalled.hello']), 'KW_ERR_MCP_TIMEOUT', /MCP server "stalled" did not answer within 0\.5 s \(connect_timeout_secs\)/);
    assert.ok(performance.now() - started < 5000);
  });

  it('close() ends every child process, also one busy with a call that never returns', async (t) => {
    const manager = managerFor(t, [flaky('a'), flaky('b')]);
    const [pidA, pidB, hangB] = await manager.tools(['a.pid', 'b.pid', 'b.hang']);
    const pids = [Number(await call(pidA!)), Number(await call(pidB!))];
    assert.ok(pids.every(alive));
    const pending = hangB!.call({}, ctx()).catch((err: unknown) => err);
    await manager.close();
    assert.deepEqual(pids.map(alive), [false, false]);
    const err = await pending;
    assert.ok(err instanceof KowalskiError && err.code === 'KW_ERR_MCP_UNAVAILABLE', String(err));
    await failsWith(call(pidA!), 'KW_ERR_MCP_UNAVAILABLE', /is closed/);
  });

  it('check() reports every server: its tools and time, or why it did not answer', async (t) => {
    const manager = managerFor(t, [flaky(), stdio('broken', ['--x'], { command: 'kw-no-such-mcp-server' })]);
    const [ok, broken] = await manager.check();
    assert.equal(ok?.name, 'flaky');
    assert.equal(ok.ok, true);
    assert.equal(ok.transport, 'stdio');
    assert.equal(ok.target, `${process.execPath} ${FLAKY}`);
    assert.deepEqual(ok.tools.map((tool) => tool.name), ['echo', 'pid', 'crash', 'hang', 'mixed', 'fail']);
    assert.equal(ok.tools[0]?.description, 'Returns the message');
    assert.ok(ok.ms > 0);
    assert.equal(ok.error, undefined);
    assert.equal(broken?.ok, false);
    assert.equal(broken.target, 'kw-no-such-mcp-server --x');
    assert.deepEqual(broken.tools, []);
    assert.equal(broken.error?.code, 'KW_ERR_MCP_UNAVAILABLE');
    assert.match(broken.error.message, /"broken" cannot be started/);
  });
});
