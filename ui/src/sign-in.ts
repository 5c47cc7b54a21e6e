/**
 * A sign-in link (`/?code=…`, printed by `kowalski serve` and `kowalski open`): the code is
 * taken off the address at once (so it stays in no history or bookmark) and traded, once,
 * for the API token, which the store keeps.
 */
import type { TokenStore } from './auth';

export type SignIn = 'none' | 'signed-in' | 'refused';

export async function takeSignInCode(loc: Location, history: History, tokens: TokenStore, doFetch: typeof fetch = (i, init) => fetch(i, init)): Promise<SignIn> {
  const url = new URL(loc.href);
  const code = url.searchParams.get('code');
  if (code === null) return 'none';
  url.searchParams.delete('code');
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  try {
    const res = await doFetch('/api/auth/exchange', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ code }),
    });
    if (!res.ok) return 'refused';
    const { token } = await res.json() as { token?: unknown };
    if (typeof token !== 'string' || token === '') return 'refused';
    tokens.set(token);
    return 'signed-in';
  } catch {
    return 'refused';
  }
}
