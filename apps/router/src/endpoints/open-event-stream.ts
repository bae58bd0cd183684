import { get, type IncomingMessage } from 'node:http';
import { get as getTls } from 'node:https';

/**
 * Opens a long-lived GET (the registry's SSE watch) with node:http: resolves with the response as
 * soon as its head arrives, rejects when no head comes within `headersTimeoutMs`. The body has no
 * timeout (a quiet watch is normal); `signal` ends it. node:http rather than undici: the router
 * needs no second HTTP client (undici's ~4 MiB of heap in every router; docs/performance.md).
 */
export function openEventStream(url: URL, headers: Record<string, string>, signal: AbortSignal, headersTimeoutMs: number): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? getTls : get;
  return new Promise((resolve, reject) => {
    const req = send(url, { headers, signal }, (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer from ${url.origin} within ${headersTimeoutMs} ms`)), headersTimeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** The whole (short) body of an answer that is not the stream, as text. */
export async function readText(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res as AsyncIterable<string>) text += chunk;
  return text;
}
