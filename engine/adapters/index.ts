/** Adapters (inbound channels): the public face of engine/adapters. */
export { createAdapters } from './adapters-service.js';
export type { Adapters, AdaptersDeps } from './adapters-service.js';
export type { RunningAdapter } from './registry.js';
export { ADAPTER_DEFINITIONS, ADAPTER_TOOL_NAMES } from './definitions.js';
export { DEDUPE_KEEP_MS } from './inbound.js';
export { adapterConfigError, adaptersFrom, intSetting, secretSetting, stringSetting, urlSetting } from './settings.js';
export type { AdapterConfig } from './settings.js';
export { ADAPTER_TYPES } from './types.js';
export type { Accepted, AdapterDefinition, AdapterHost, AdapterInstance, AdapterState, AdapterStatus, AdapterType, InboundMessage, InboundRecord, InboundState, OutboundMessage, OutboundReceipt, PluginAdapterCalls } from './types.js';
export { DELIVERY_HEADER, SIGNATURE_HEADER, SIGNATURE_VERSION, TIMESTAMP_HEADER, TOLERANCE_SECS, signedHeaders, webhookDigest } from './webhook/signature.js';
export type { WebhookSettings } from './webhook/webhook-adapter.js';
export { isHttpAdapter } from './http-inbound.js';
export type { PluginAdapterInstance, PluginAdapterSettings } from './plugin/plugin-adapter.js';
export type { HttpAdapterInstance, InboundAnswer, InboundHeaders, InboundRequest } from './http-inbound.js';
