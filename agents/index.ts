/**
 * The public face of agents/: the model layer's shapes, the tool loop, the tool registry
 * and the tools. Nothing here loads a provider SDK, the MCP SDK or the HTML tool chain,
 * so the CLI and the engine's start never pay for them: the providers have their own
 * face (`providers/index.ts`, loaded by model steps in their threads), as has the page
 * fetcher (`net/index.ts`, for ingest); the MCP client and web_fetch load them at first use.
 */
export type {
  JsonSchemaObject, ToolSpec, ToolCall, ToolCaller, ChatMessage, ChatRequest, ChatResponse, Usage, StopReason, ProviderName, Provider, EmbedRequest, EmbedResponse,
  ModelRef, ToolCallingMode, ToolCallingSetting, ProviderSettings, ToolOutput, ToolContext, Tool,
} from './types.js';
export type { ModelCallTrace, TracedToolCall } from './trace.js';
export { runToolLoop, boundedToolResult, MAX_TOOL_RESULT_CHARS } from './tool-loop.js';
export { replayEntry, replayKey, replayingCaller } from './model-replay.js';
export type { ReplayTable, ReplayedCall, ReplayKeyParts } from './model-replay.js';
export type { ToolLoopOptions, ToolLoopResult, ToolCallAt } from './tool-loop.js';
export { parseTextToolCall, textToolInstructions, textToolResult } from './text-tool-calls.js';
export { toolWireName, toolNameClash, toolNameClashMessage, wireNames } from './tool-names.js';
export type { ToolNameClash } from './tool-names.js';
export { createToolRegistry } from './tool-registry.js';
export type { ToolRegistry, ToolRegistryOptions, McpToolSource } from './tool-registry.js';
export { createFileTools, createFsToolSet, FS_TOOL_NAMES } from './tools/file-tools.js';
export { resolveToolPath, expandHome } from './tools/file-root.js';
export type { FileToolOptions, FileAccess, ToolPath } from './tools/file-root.js';
export { createWebSearchTool } from './tools/web-search.js';
export type { WebSearchOptions } from './tools/web-search.js';
export { STAAN_DEFAULT_MARKET, STAAN_MARKET, webSearchConfigFrom } from './tools/web-search-config.js';
export type { WebSearchConfig } from './tools/web-search-config.js';
export { mcpServersFrom, MCP_DEFAULT_TIMEOUT_SECS, MCP_DEFAULT_CONNECT_TIMEOUT_SECS, MCP_MAX_SECS } from './mcp/config.js';
export type { McpServerConfig, McpStdioServer, McpHttpServer } from './mcp/config.js';
export { McpManager } from './mcp/manager.js';
export type { McpManagerOptions, McpCheck } from './mcp/manager.js';
export { createWebFetchTool, DEFAULT_WEB_FETCH_CHARS } from './tools/web-fetch.js';
export type { WebFetchOptions } from './tools/web-fetch.js';
export type { FetchPageOptions, FetchedPage } from './net/fetch-page.js';
export { fetchRaw } from './net/fetch.js';
export type { FetchRawOptions, RawRequest, RawResponse } from './net/fetch-raw.js';
export { decodeBody } from './net/decode-body.js';
export type { SafeAgentOptions, LookupFunction } from './net/safe-agent.js';
export { blockedReason, checkUrl, AllowList } from './net/address-policy.js';
export type { UrlHost } from './net/address-policy.js';
export { parseModelRef, formatModelRef, PROVIDER_NAMES } from './providers/model-ref.js';
export {
  providerSettingsFrom, normalizeOllamaHost, DEFAULT_OLLAMA_HOST, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BASE_MS,
} from './providers/settings.js';
export { costOf, anthropicPrice, geminiPrice } from './providers/pricing.js';
export type { Price } from './providers/pricing.js';
export { probeModel, DEFAULT_PROBE_TIMEOUT_MS } from './providers/probe.js';
export { listModels } from './providers/list-models.js';
export type { ProbeResult, ProbeStatus } from './providers/probe.js';
export { DATA_TOOL_NAMES } from './data-types.js';
export type {
  DataValue, DataColumn, TableInfo, ListTablesResult, ColumnProfile, DescribeTableResult, QueryResult,
  TableProfileFile, SqlBatchQuery, SqlBatchFile, DataToolName,
} from './data-types.js';
export { isLoopback } from './net/loopback.js';
export { digestsEqual, secretsEqual } from './net/secrets.js';
export { readBounded } from './net/read-bounded.js';
