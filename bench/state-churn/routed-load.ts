/**
 * Closed-loop load through the router: `concurrency` keep-alive connections, one request in
 * flight on each, every request carrying its sticky key in `x-bench-key`. Each answer is handed
 * to `onSample` with what the handler said about itself (worker, cache outcome, state calls).
 */
import { Pool } from 'undici';
import { type CacheOutcome, parseCacheOutcome, parseStateCalls, type StateCall } from './handler-source.ts';
import { keyPicker } from './key-picker.ts';

export interface RoutedSample {
  /** performance.now() when the request was sent. */
  sentAt: number;
  ms: number;
  /** 0 when no HTTP answer came (connection error). */
  status: number;
  key: string;
  worker?: string;
  cache?: CacheOutcome;
  calls: StateCall[];
}

export interface RoutedLoadOptions {
  routerUrl: string;
  path: string;
  concurrency: number;
  durationMs: number;
  keys: number;
  seed: number;
  onSample: (s: RoutedSample) => void;
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function routedRequest(pool: Pool, path: string, key: string): Promise<RoutedSample> {
  const sentAt = performance.now();
  try {
    const res = await pool.request({ method: 'POST', path, headers: { 'x-bench-key': key } });
    await res.body.dump();
    const ms = performance.now() - sentAt;
    const h = res.headers;
    return { sentAt, ms, status: res.statusCode, key, worker: one(h['x-bench-worker']), cache: parseCacheOutcome(one(h['x-bench-cache'])), calls: parseStateCalls(one(h['x-bench-state'])) };
  } catch {
    return { sentAt, ms: performance.now() - sentAt, status: 0, key, calls: [] };
  }
}

export async function routedLoad(o: RoutedLoadOptions): Promise<void> {
  const pool = new Pool(o.routerUrl, { connections: o.concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const end = performance.now() + o.durationMs;
  try {
    await Promise.all(
      Array.from({ length: o.concurrency }, async (_, loop) => {
        const pick = keyPicker(o.keys, o.seed * 1000 + loop);
        while (performance.now() < end) o.onSample(await routedRequest(pool, o.path, pick()));
      }),
    );
  } finally {
    await pool.close();
  }
}
