/** The path of a request URL (`req.url`), without its query string; '/' when there is none. */
export function urlPath(url: string | undefined): string {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The query string of a request URL, without its '?'; '' when it has none. */
export function urlQuery(url: string | undefined): string {
  if (url === undefined) return '';
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}
