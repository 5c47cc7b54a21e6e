/**
 * The main module of a plugin's process: plain JavaScript (the child runs under Node's
 * permission model with no tsx and reads nothing of kowalski but this file). It loads the
 * plugin's tool and adapter modules, runs each call it is sent (a tool's, or an adapter's
 * `receive` or `send`) and sends the result back; it gives
 * each tool a `kowalski` context whose `fetch` goes through the engine. Its messages are
 * described in protocol.ts. Nothing here is a guard: the plugin's code runs in this same
 * process and could bypass any of it; what confines the plugin is Node's permission
 * model, bubblewrap where the machine has it, and the engine's checks (docs/plugins.md, "How
 * plugins are confined").
 */
let plugin = '';
let dataDir = '';
let maxResultBytes = 1024 * 1024;
/** tool name → the function its module exports */
const tools = new Map();
/** adapter name → the object its module exports: `{ receive(request, kowalski), send(reply, kowalski) }` */
const adapters = new Map();
/** call id → its AbortController */
const calls = new Map();
/** fetch id → { resolve, reject } */
const fetches = new Map();
let nextFetch = 0;

function send(message) {
  if (process.connected) process.send(message);
}

/** The error as data; Node's permission refusal is found also when the plugin wrapped it (in `cause`). */
function wire(err) {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = e.cause, depth += 1) {
    if (e.code === 'ERR_ACCESS_DENIED') {
      return { code: 'ERR_ACCESS_DENIED', message: String(e.message), permission: String(e.permission ?? ''), resource: String(e.resource ?? '') };
    }
  }
  if (err instanceof Error) return { code: typeof err.code === 'string' ? err.code : 'tool', message: err.message || err.name };
  return { code: 'tool', message: String(err) };
}

/** `kowalski.fetch(url, {method, headers, body})`: the engine makes the request, if this plugin may reach the host. */
function kowalskiFetch(url, init = {}) {
  const id = ++nextFetch;
  const request = { method: init.method, headers: init.headers, body: typeof init.body === 'string' ? init.body : undefined };
  return new Promise((resolve, reject) => {
    fetches.set(id, { resolve, reject });
    send({ type: 'fetch', id, url: String(url), init: request });
  }).then((answer) => {
    const body = Buffer.from(answer.body, 'base64');
    return {
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      url: answer.url,
      headers: answer.headers,
      bytes: async () => new Uint8Array(body),
      text: async () => body.toString('utf8'),
      json: async () => JSON.parse(body.toString('utf8')),
    };
  });
}

/** A tool's return value as a ToolOutput: text as it is, `{content}` as it is, anything else as JSON. */
function toOutput(value) {
  if (typeof value === 'string') return { content: value };
  if (value !== null && typeof value === 'object' && typeof value.content === 'string') {
    const out = { content: value.content };
    if (value.meta !== undefined) out.meta = value.meta;
    if (value.structured !== undefined) out.structured = value.structured;
    return out;
  }
  return { content: JSON.stringify(value ?? null), structured: value ?? null };
}

async function init(message) {
  for (const name of Object.keys(process.env)) if (!message.env.includes(name)) delete process.env[name];
  plugin = message.plugin;
  dataDir = message.dataDir;
  maxResultBytes = message.maxResultBytes;
  for (const tool of message.tools) {
    let mod;
    try {
      mod = await import(tool.url);
    } catch (err) {
      const e = wire(err);
      send({ type: 'start-failed', error: { ...e, message: `tool ${tool.name}: ${tool.url} cannot be loaded: ${e.message}` } });
      return;
    }
    const fn = mod[tool.export];
    if (typeof fn !== 'function') {
      send({ type: 'start-failed', error: { code: 'export', message: `tool ${tool.name}: ${tool.url} exports no function ${tool.export}` } });
      return;
    }
    tools.set(tool.name, fn);
  }
  for (const adapter of message.adapters ?? []) {
    let mod;
    try {
      mod = await import(adapter.url);
    } catch (err) {
      const e = wire(err);
      send({ type: 'start-failed', error: { ...e, message: `adapter ${adapter.name}: ${adapter.url} cannot be loaded: ${e.message}` } });
      return;
    }
    const impl = mod[adapter.export];
    if (impl === null || typeof impl !== 'object' || typeof impl.receive !== 'function' || typeof impl.send !== 'function') {
      send({ type: 'start-failed', error: { code: 'export', message: `adapter ${adapter.name}: ${adapter.url} exports no object ${adapter.export} with receive and send functions` } });
      return;
    }
    adapters.set(adapter.name, impl);
  }
  send({ type: 'ready' });
}

async function call(message) {
  const fn = tools.get(message.tool);
  const controller = new AbortController();
  calls.set(message.id, controller);
  try {
    const context = { plugin, dataDir, signal: controller.signal, fetch: kowalskiFetch };
    let output;
    if (message.adapter === 'receive' || message.adapter === 'send') {
      // An adapter's method: its value is the answer as it is (the engine checks it), carried as `structured`.
      const impl = adapters.get(message.tool);
      if (impl === undefined) throw Object.assign(new Error(`plugin ${plugin} has no adapter ${message.tool}`), { code: 'tool' });
      const value = await impl[message.adapter](message.args, context);
      output = { content: '', structured: value ?? null };
    } else {
      if (fn === undefined) throw Object.assign(new Error(`plugin ${plugin} has no tool ${message.tool}`), { code: 'tool' });
      output = toOutput(await fn(message.args, context));
    }
    const size = Buffer.byteLength(JSON.stringify(output));
    if (size > maxResultBytes) {
      send({ type: 'result', id: message.id, ok: false, error: { code: 'KW_ERR_PLUGIN_RESULT_LIMIT', message: `the answer is ${size} bytes, more than the limit of ${maxResultBytes}` } });
    } else {
      send({ type: 'result', id: message.id, ok: true, output });
    }
  } catch (err) {
    send({ type: 'result', id: message.id, ok: false, error: wire(err) });
  } finally {
    calls.delete(message.id);
  }
}

function fetched(message) {
  const waiting = fetches.get(message.id);
  if (waiting === undefined) return;
  fetches.delete(message.id);
  if (message.ok) waiting.resolve(message.response);
  else waiting.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
}

process.on('message', (message) => {
  switch (message?.type) {
    case 'init': void init(message); break;
    case 'call': void call(message); break;
    case 'cancel': calls.get(message.id)?.abort(new Error('the call was cancelled')); break;
    case 'fetched': fetched(message); break;
    default: break;
  }
});
// The engine is gone: so is this process.
process.on('disconnect', () => process.exit(0));
