/** The API token: where it is kept, and asking the operator for it when the server says 401. */

export const TOKEN_KEY = 'kowalski.token';

export interface TokenStore {
  get(): string | null;
  set(token: string | null): void;
}

/** Keeps the token in localStorage (`kowalski.token`); falls back to memory when storage is refused. */
export function localTokenStore(storage: Storage | null): TokenStore {
  let memory: string | null = null;
  return {
    get() {
      try {
        return storage?.getItem(TOKEN_KEY) ?? memory;
      } catch {
        return memory;
      }
    },
    set(token) {
      memory = token;
      try {
        if (token === null) storage?.removeItem(TOKEN_KEY);
        else storage?.setItem(TOKEN_KEY, token);
      } catch {
        // Private mode or a full quota: the in-memory copy still works for this tab.
      }
    },
  };
}

export interface PromptState {
  /** True while the operator is being asked. */
  open: boolean;
  /** Set when the token given last time was refused too. */
  refused: boolean;
  /** Set when the app was opened with a sign-in link that no longer works (used or expired). */
  linkRefused: boolean;
}

/**
 * Asks the operator for the token at most once at a time: every request that meets a 401
 * while the prompt is open waits for the same answer.
 */
export class TokenPrompter {
  private waiting: Promise<string | null> | null = null;
  private resolve: ((token: string | null) => void) | null = null;
  private state: PromptState;
  private readonly listeners = new Set<(s: PromptState) => void>();

  constructor(private readonly linkRefused = false) {
    this.state = { open: false, refused: false, linkRefused };
  }

  /** Resolves with the pasted token, or null when the operator closes the prompt. */
  request(refused: boolean): Promise<string | null> {
    if (this.waiting !== null) return this.waiting;
    this.waiting = new Promise<string | null>((resolve) => { this.resolve = resolve; });
    this.emit({ open: true, refused, linkRefused: this.linkRefused });
    return this.waiting;
  }

  answer(token: string | null): void {
    const resolve = this.resolve;
    this.waiting = null;
    this.resolve = null;
    this.emit({ open: false, refused: false, linkRefused: this.linkRefused });
    resolve?.(token);
  }

  current(): PromptState {
    return this.state;
  }

  subscribe(listener: (s: PromptState) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  private emit(s: PromptState): void {
    this.state = s;
    for (const l of this.listeners) l(s);
  }
}
