/**
 * Browser tests of the operator app: Debian's chromium driven by playwright-core, against a
 * real `kowalski serve` child process. Nothing is mocked.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import type { Browser, Locator, Page } from 'playwright-core';
import { REPO, startCli } from '../../testkit/cli.js';
import { waitFor } from '../../testkit/wait.js';
import { TEST_TOKEN, writeTestToken } from './token.js';
export { cleanups } from '../../testkit/cleanup.js';
import type { CliResult, RunningCli } from '../../testkit/cli.js';

/** The browser binary; CI installs Debian's `chromium` (never `playwright install`). */
export const CHROMIUM = process.env.KOWALSKI_CHROMIUM ?? '/usr/bin/chromium';
/** Where the screenshots go (ignored by git). */
export const SCREENS = path.join(REPO, 'test', 'output', 'screens');
export const VIEWPORT = { width: 1366, height: 768 };
/** Longest a single wait on the page may take: a guard against a hung test, not a delay. */
export const WAIT_MS = 20_000;

const UI = path.join(REPO, 'ui');
const SERVING = /^kowalski serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/;
const SIGN_IN = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/\?code=\S+)$/;

/** The newest modification time under a folder (files only). */
function newest(dir: string): number {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) max = Math.max(max, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return max;
}

/** Builds the app into ui/dist once when it is missing or older than its sources. */
export function ensureUiBuilt(): void {
  const bundle = path.join(UI, 'dist', 'app.js');
  const built = fs.existsSync(path.join(UI, 'dist', 'index.html')) && fs.existsSync(bundle);
  if (built && fs.statSync(bundle).mtimeMs >= Math.max(newest(path.join(UI, 'src')), fs.statSync(path.join(UI, 'index.html')).mtimeMs)) return;
  execFileSync(process.execPath, [path.join(UI, 'build.mjs')], { cwd: REPO, stdio: 'pipe' });
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** The browser of this test process and how many files use it: the files of a group (test/groups/) share one. */
let shared: { browser: Promise<Browser>; files: number } | undefined;

/**
 * The browser for the whole test file: built app and chromium started before the first
 * test (one for every file of the process), closed after the last file's last test. Each
 * test opens its own context (openPage). Returns the getter the tests use.
 */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    ensureUiBuilt();
    shared ??= { browser: launchBrowser(), files: 0 };
    shared.files += 1;
    browser = await shared.browser;
  });
  after(async () => {
    if (shared === undefined || --shared.files > 0) return;
    const last = shared.browser;
    shared = undefined;
    await (await last).close();
  });
  return () => {
    if (browser === undefined) throw new Error('the browser is not started yet (use it inside a test)');
    return browser;
  };
}

export interface Server {
  cli: RunningCli;
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  /** The one-time sign-in link serve printed (`…/?code=…`). */
  signIn: string;
}

/** SIGTERM, then SIGKILL if it has not exited after 10 s. */
export async function stopServer(server: RunningCli): Promise<CliResult> {
  const { child } = server;
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    try {
      return await server.exited;
    } finally {
      clearTimeout(t);
    }
  }
  return server.exited;
}

/**
 * `kowalski serve --no-open --port <port> [args]` on `home` (default port 0: a free one),
 * its data folder holding TEST_TOKEN unless it has a token; resolves with its URL and
 * sign-in link once it listens.
 */
export async function serve(home: string, defer: (fn: () => unknown) => void, args: string[] = [], port = 0): Promise<Server> {
  writeTestToken(home);
  const cli = startCli(home, ['serve', '--no-open', '--port', String(port), ...args], { limitMs: 300_000 });
  cli.exited.catch(() => undefined); // awaited by stopServer; never an unhandled rejection
  defer(() => stopServer(cli));
  const url = SERVING.exec(await cli.stderrLine(SERVING))![1]!;
  const signIn = SIGN_IN.exec(await cli.stderrLine(SIGN_IN))![1]!;
  return { cli, url, signIn };
}

/**
 * Holds, on the page's websocket, the `work` frame that ends `op`, and the answer of the
 * request matching `request` that started it, until `release()`: the progress bar stays as
 * the last frame left it, as a slower machine would show it, for a look. Call it before the
 * page opens its socket (the socket is routed through playwright from then on).
 * `progressed` resolves at the first frame of `op` past its start.
 */
export async function holdWorkEnd(page: Page, op: string, request: RegExp): Promise<{ progressed: Promise<void>; release: () => void }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let progress!: () => void;
  const progressed = new Promise<void>((resolve) => { progress = resolve; });
  await page.routeWebSocket(/\/api\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => server.send(message));
    server.onMessage((message) => {
      const frame = typeof message === 'string' ? JSON.parse(message) as { type?: string; op?: string; finished?: boolean; phase?: string } : undefined;
      if (frame?.type === 'work' && frame.op === op) {
        if (frame.finished === true) {
          void released.then(() => ws.send(message));
          return;
        }
        if (frame.phase !== 'start') progress();
      }
      ws.send(message);
    });
  });
  await page.route(request, async (route) => {
    const response = await route.fetch();
    await released;
    await route.fulfill({ response });
  });
  return { progressed, release };
}

export interface OpenPage {
  page: Page;
  /** Uncaught exceptions in the page (there should be none). */
  pageErrors: string[];
}

/**
 * A page in its own browser context (own storage), 1366×768, closed by `defer`; signed in
 * (TEST_TOKEN in the app's storage, as a sign-in link leaves it) unless `signedIn` is false.
 */
export async function openPage(browser: Browser, defer: (fn: () => unknown) => void, { signedIn = true } = {}): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  defer(() => context.close());
  if (signedIn) await context.addInitScript({ content: `localStorage.setItem('kowalski.token', ${JSON.stringify(TEST_TOKEN)});` });
  context.setDefaultTimeout(WAIT_MS);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.stack ?? err.message));
  return { page, pageErrors };
}

/** A PNG under test/output/screens/: the full page, or one element. */
export async function shot(what: Page | Locator, name: string): Promise<void> {
  fs.mkdirSync(SCREENS, { recursive: true });
  const file = path.join(SCREENS, `${name}.png`);
  if ('goto' in what) await what.screenshot({ path: file, fullPage: true });
  else await what.screenshot({ path: file });
}

/** The element with `data-testid=<id>`, narrowed by more CSS (`[data-state="succeeded"]`). */
export function testId(scope: Page | Locator, id: string, more = ''): Locator {
  return scope.locator(`[data-testid="${id}"]${more}`);
}

/** Waits until the element is visible and returns its text. */
export async function textOf(locator: Locator): Promise<string> {
  await locator.waitFor({ state: 'visible' });
  return (await locator.textContent()) ?? '';
}

/** What a screen read of one API list, and the websocket's `changed` frames about it the page was sent, once `start()` is called. */
export interface LiveReads {
  start(): void;
  /** GET requests of the list. */
  readonly gets: number;
  /** `changed` frames of its topic. */
  readonly frames: number;
}

/**
 * Counts a screen's reads of `apiPath` against the `changed` frames of `topic` the page
 * receives (set up before the page opens its websocket): a screen that reads only when told
 * makes one read per frame; one that polls makes more.
 */
export function liveReads(page: Page, apiPath: string, topic: string): LiveReads {
  let counting = false;
  let gets = 0;
  let frames = 0;
  page.on('request', (r) => {
    if (counting && r.method() === 'GET' && new URL(r.url()).pathname === apiPath) gets += 1;
  });
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
    if (!counting || typeof payload !== 'string' || !payload.startsWith('{"type":"changed"')) return;
    if ((JSON.parse(payload) as { topic?: string }).topic === topic) frames += 1;
  }));
  return {
    start: () => void (counting = true),
    get gets() { return gets; },
    get frames() { return frames; },
  };
}

/**
 * Live, not polled: the page's clock jumps past three 5-s polls (a poll would read now),
 * then `change` (made through the API) shows as `shown` within 2 s in the same document
 * (no reload), and every read of the list since `start` was asked for by a `changed` frame.
 * The page's clock must have been installed (`page.clock.install()`) before it opened.
 */
export async function expectLive(page: Page, live: LiveReads, change: () => Promise<unknown>, shown: Locator): Promise<void> {
  live.start();
  await page.clock.fastForward(15_000);
  await page.evaluate('window.kwSameDocument = true');
  await change();
  await shown.waitFor({ timeout: 2000 });
  assert.equal(await page.evaluate('window.kwSameDocument'), true, 'shown without a reload');
  await waitFor(() => live.gets >= live.frames, 'a read for each changed frame');
  assert.ok(live.frames >= 1, 'the server said it changed');
  assert.equal(live.gets, live.frames, `every read was asked for by a changed frame (${live.gets} reads, ${live.frames} frames): no polling`);
}

/** A JSON API call from the test (Host and no Origin, as a CLI would send), with TEST_TOKEN unless `token` says otherwise (null: none). */
export async function apiJson<T = any>(url: string, method: 'GET' | 'POST' | 'PUT', apiPath: string, body?: unknown, token: string | null = TEST_TOKEN): Promise<{ status: number; json: T }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(new URL(apiPath, url), { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: await res.json() as T };
}
