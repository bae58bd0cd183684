/**
 * Where the login page may send the user after logging in (`/login?next=…`): only a path on the
 * console's own origin. `next` is resolved against the origin the way the browser would resolve
 * it — so `/\evil.example` (a backslash is a slash to the browser), `//evil.example`,
 * `https://evil.example` and `javascript:` all land elsewhere and fall back to `/`.
 */
export function sameOriginRedirect(next: string | null | undefined, origin: string, fallback = '/'): string {
  if (!next) return fallback;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return fallback;
  }
  if (url.origin !== new URL(origin).origin) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // A path the router would read as protocol-relative (`/.//evil.example` normalizes to `//evil.example`).
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return fallback;
  return path;
}
