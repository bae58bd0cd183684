import { jsonObjectOf, postJson } from '@orrery/control-http';
import { UpstreamPool } from '../proxy/http1-upstream.ts';

/** Idle connections to the operator older than this are not reused (below node's 5 s server keep-alive). */
const IDLE_MS = 4_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** The operator answers a few hundred bytes; anything far larger is not its answer. */
const MAX_ANSWER_BYTES = 1024 * 1024;

interface Target {
  pool: UpstreamPool;
  path: string;
}
/** By URL: the activator calls a handful of fixed URLs (specialize, poke, stats). */
const targets = new Map<string, Target>();
/**
 * By operator address: every URL of one operator shares its connections, so the stats pushed
 * each second keep one warm for a cold request's specialize call.
 */
const pools = new Map<string, UpstreamPool>();

function targetOf(url: string): Target {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    const address = `${u.hostname}:${u.port || '80'}`;
    let pool = pools.get(address);
    if (!pool) pools.set(address, (pool = new UpstreamPool(address, CONNECT_TIMEOUT_MS, IDLE_MS)));
    t = { pool, path: `${u.pathname}${u.search}` };
    targets.set(url, t);
  }
  return t;
}

/**
 * One JSON POST from the activator to the operator (pokes, stats, pool specialization), answered
 * as `{status, body}` (body `{}` when it is not a JSON object). Plain http goes through the
 * proxy's own keep-alive client (http1-upstream.ts): a cold request's specialize call is the one
 * call on its path, made after the router sat idle, and node:http's client costs ~0.7 ms more
 * than this one there (docs/performance.md "coldstart"). https (an operator behind TLS) uses
 * node:https through @orrery/control-http. No fetch: no first-use load of Node's fetch stack, and
 * no second HTTP client in the router (undici cost ~4 MiB of heap in every router).
 */
export function operatorPost(url: string, body: unknown, o: { token?: string; timeoutMs: number }): Promise<{ status: number; body: unknown }> {
  if (!url.startsWith('http:')) return postJson(url, body, { timeoutMs: o.timeoutMs, ...(o.token ? { headers: { authorization: `Bearer ${o.token}` } } : {}) });
  const { pool, path } = targetOf(url);
  const text = JSON.stringify(body);
  const headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(text))];
  if (o.token) headers.push('authorization', `Bearer ${o.token}`);
  return new Promise((resolve, reject) => {
    let status = 0;
    let size = 0;
    let abort: (err?: Error) => void = () => undefined;
    const chunks: Buffer[] = [];
    pool.dispatch(
      { method: 'POST', path, headers, body: null, bodyHasLength: true, wholeBody: text, timeoutMs: o.timeoutMs },
      {
        onConnect: (a) => (abort = a),
        onHeaders: (code) => {
          status = code;
          return true;
        },
        onData: (chunk) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) abort(new Error(`${url} answered more than ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
          return true;
        },
        onComplete: (_trailers, last) => {
          if (last) chunks.push(last);
          resolve({ status, body: jsonObjectOf(chunks) });
        },
        onError: (err) => reject(err.message.includes(url) ? err : new Error(`POST ${url}: ${err.message}`)),
      },
    );
  });
}

