/** `value` as an http:// or https:// URL without its trailing slashes; anything else throws what `refuse` makes of the reason. */
export function httpUrlOr(value: string, refuse: (why: string) => Error): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse(`${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must be an http:// or https:// URL');
  return value.replace(/\/+$/, '');
}
