/** One line of `kowalski doctor`: what was checked, how it stands, and what to do about it. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do (absent when ok). */
  fix?: string;
}

export const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
export const warn = (name: string, detail: string, fix: string): Check => ({ name, status: 'warn', detail, fix });
export const fail = (name: string, detail: string, fix: string): Check => ({ name, status: 'fail', detail, fix });

/** An error's message, its cause's too when it has one (fetch hides the reason there). */
export function reason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause === undefined ? e.message : `${e.message}: ${cause}`;
}
