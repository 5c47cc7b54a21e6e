/** A sign-in link: the app's address with a one-time code the app trades for the API token. */
export function signInUrl(base: string, code: string, page?: string): string {
  const url = new URL(base);
  url.search = new URLSearchParams({ code }).toString();
  if (page !== undefined) url.hash = page;
  return url.href;
}
