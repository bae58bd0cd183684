/**
 * Where a sticky function's routing key comes from (`spec.state.sticky`): a header (read in the
 * one pass over the head, proxy/request-head.ts), a query parameter or a cookie (here). Pure.
 */

/**
 * The value of query parameter `name` in a request target (`/path?a=1&b=2`), decoded as
 * URLSearchParams decodes it; the first occurrence wins; undefined when absent.
 */
export function queryValue(target: string, name: string): string | undefined {
  const q = target.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(target.slice(q + 1)).get(name) ?? undefined;
}

const EQUALS = 0x3d;
const SP = 0x20;
const HTAB = 0x09;
const DQUOTE = 0x22;

const isWhitespace = (c: number): boolean => c === SP || c === HTAB;

/**
 * The value of cookie `name` in a request's `Cookie` header lines, parsed as RFC 6265 §4.2.1 /
 * §5.4 send them: `name=value` pairs separated by `;` (and usually a space). Servers meet more
 * than the grammar, so this reads them the way common servers do (Go's net/http, jshttp/cookie):
 *
 * - every `Cookie` line counts, in order (an HTTP/2 hop may split one into several, RFC 9113
 *   §8.2.3); the first pair named `name` wins, as in those servers;
 * - names compare exactly (cookie names are case-sensitive); whitespace around the name and the
 *   value is dropped; a value wrapped in double quotes loses them (`a="x"` is `x`);
 * - a pair without `=` is no cookie and is skipped; the value is taken as sent (no
 *   percent-decoding: RFC 6265 defines none, and the key only has to be the same each time).
 *
 * Returns undefined when no such cookie was sent; `a=` gives `''` (the caller treats an empty
 * key as missing, as for the header and query sources).
 *
 * @param rawHeaders `[name, value, …]` as the ingress read them (header names in any case)
 */
export function cookieValue(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const h = rawHeaders[i]!;
    if (h.length !== 6 || h.toLowerCase() !== 'cookie') continue;
    const v = cookieInLine(rawHeaders[i + 1]!, name);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The first `name=value` pair of one Cookie line named `name`, without allocating for the others. */
export function cookieInLine(line: string, name: string): string | undefined {
  const len = line.length;
  const nlen = name.length;
  let pos = 0;
  while (pos < len) {
    let end = line.indexOf(';', pos);
    if (end < 0) end = len;
    // Skip leading whitespace, then match the name, optional whitespace and '='.
    let p = pos;
    while (p < end && isWhitespace(line.charCodeAt(p))) p++;
    if (end - p > nlen && line.startsWith(name, p)) {
      let q = p + nlen;
      while (q < end && isWhitespace(line.charCodeAt(q))) q++;
      if (q < end && line.charCodeAt(q) === EQUALS) {
        let vs = q + 1;
        let ve = end;
        while (vs < ve && isWhitespace(line.charCodeAt(vs))) vs++;
        while (ve > vs && isWhitespace(line.charCodeAt(ve - 1))) ve--;
        if (ve - vs >= 2 && line.charCodeAt(vs) === DQUOTE && line.charCodeAt(ve - 1) === DQUOTE) {
          vs++;
          ve--;
        }
        return line.slice(vs, ve);
      }
    }
    pos = end + 1;
  }
  return undefined;
}
