/** Setup (`GET/PUT /api/setup`): the model provider, the tools folder and semantic search over the vault, as config.toml holds them. */

export type ToolCalling = 'auto' | 'native' | 'text';

/** A hosted provider's key (only a hint of it) and base URL. */
export interface KeyedSetup {
  apiKeySet: boolean;
  apiKeyHint: string | null;
  baseUrl: string | null;
}

export interface Setup {
  configFile: string;
  model: { default: string | null; toolCalling: ToolCalling };
  providers: {
    ollama: { host: string | null };
    anthropic: KeyedSetup;
    gemini: KeyedSetup;
    /** `[providers.openai]`: an OpenAI-compatible server (LM Studio, vLLM, llama.cpp, OpenAI). */
    openai: KeyedSetup;
  };
  tools: { root: string | null };
  /** `[vault.semantic]`: off by default; the model defaults to `ollama:nomic-embed-text`. */
  vault: { semantic: { enabled: boolean; model: string } };
}

/** Every key optional; `null` removes the setting. */
export interface SetupPatch {
  model?: { default?: string | null; toolCalling?: ToolCalling };
  providers?: {
    ollama?: { host?: string | null };
    anthropic?: { apiKey?: string | null; baseUrl?: string | null };
    gemini?: { apiKey?: string | null; baseUrl?: string | null };
    openai?: { apiKey?: string | null; baseUrl?: string | null };
  };
  tools?: { root?: string | null };
  /** A null model goes back to the default. */
  vault?: { semantic?: { enabled?: boolean; model?: string | null } };
}

/** How config.toml was written: its lines edited (comments kept), or written afresh from its values. */
export interface SetupWritten {
  comments: 'kept' | 'dropped';
  /** One sentence for the operator. */
  message: string;
}

export type ProbeStatus = 'ok' | 'unreachable' | 'model_missing' | 'not_configured';

/** A model's check: is its server there, and does it have the model? */
export interface ProbeResult {
  status: ProbeStatus;
  /** One sentence for the operator, naming the server or the config.toml key. */
  message: string;
}

/** `PUT /api/setup`'s answer: the new Setup, how config.toml was written, and the default model's check when the save changed the model or a provider. */
export interface SetupSaved extends Setup {
  written: SetupWritten;
  check: ProbeResult | null;
}
