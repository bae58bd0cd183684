import type { IncomingHttpHeaders } from 'node:http';

/** Headers node keeps only the first of (its IncomingMessage's rule); every other repeat is joined. */
const FIRST_WINS = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * node's `req.headers` from a raw [name, value, …] list, by node's own rules: names lower-cased;
 * a repeated header from FIRST_WINS keeps its first value, `set-cookie` collects an array,
 * `cookie` joins with "; " and any other joins with ", ". A request served by the raw ingress
 * must read exactly as it would through node:http — the scope comes from these headers.
 */
export function nodeHeaderObject(rawHeaders: readonly string[]): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    const seen = out[name];
    if (seen === undefined) {
      out[name] = name === 'set-cookie' ? [value] : value;
    } else if (name === 'set-cookie') {
      (seen as string[]).push(value);
    } else if (!FIRST_WINS.has(name)) {
      out[name] = `${seen as string}${name === 'cookie' ? '; ' : ', '}${value}`;
    }
  }
  return out;
}
