import { request } from 'node:http';
import { request as requestTls } from 'node:https';

/** What a JSON POST answered: the status and the parsed body (`{}` when it was empty or not JSON). */
export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface PostJsonOptions {
  /** No answer within this long fails the call (default 5 s): a control-plane call never waits forever. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/**
 * POSTs `body` as JSON and reads the answer; any HTTP status is an answer, a network failure or
 * timeout throws. node:http rather than fetch: a cold start's first call does not pay for
 * loading Node's separate fetch stack (the pool executor calls each new worker once).
 */
export function postJson(url: string, body: unknown, opts: PostJsonOptions = {}): Promise<JsonAnswer> {
  const payload = Buffer.from(JSON.stringify(body));
  const timeoutMs = opts.timeoutMs ?? 5000;
  const send = url.startsWith('https:') ? requestTls : request;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers: { ...opts.headers, 'content-type': 'application/json', 'content-length': payload.length }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: jsonObjectOf(chunks) }));
    });
    req.once('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(payload);
  });
}

/** An answer's bytes as a JSON object; `{}` when they are empty, not JSON, or not an object. */
export function jsonObjectOf(chunks: Buffer[]): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    /* not JSON: the status says enough */
  }
  return {};
}
