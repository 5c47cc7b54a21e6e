/** The page fetcher's public face: fetchPage and its SSRF policy (loads undici and the HTML tool chain). */
export { fetchPage, FETCH_DEFAULTS } from './fetch-page.js';
export type { FetchPageOptions, FetchedPage } from './fetch-page.js';
export { createSafeAgent, safeConnector } from './safe-agent.js';
export type { SafeAgentOptions, LookupFunction } from './safe-agent.js';
export { htmlToMarkdown } from './html-to-markdown.js';
export type { PageText } from './html-to-markdown.js';
