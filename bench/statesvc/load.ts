/** A small closed-loop load generator: N keep-alive connections, one request in flight on each. */
import { Pool } from 'undici';

export interface LoadResult {
  ops: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(latencies: number[], seconds: number, errors: number): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  return { ops: sorted.length, opsPerSec: sorted.length / seconds, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), errors };
}

export interface Samples {
  latencies: number[];
  errors: number;
  seconds: number;
}

/** Merges measurement slices (interleaved runs of one side) into one result. */
export function merge(slices: Samples[]): LoadResult {
  return summarize(slices.flatMap((s) => s.latencies), slices.reduce((a, s) => a + s.seconds, 0), slices.reduce((a, s) => a + s.errors, 0));
}

export async function closedLoop(concurrency: number, warmupMs: number, durationMs: number, op: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const s = await closedLoopSamples(concurrency, warmupMs, durationMs, op);
  return summarize(s.latencies, s.seconds, s.errors);
}

/** Runs `op` on `concurrency` loops for warmup + duration; only the measured window counts. */
export async function closedLoopSamples(concurrency: number, warmupMs: number, durationMs: number, op: (i: number) => Promise<boolean>): Promise<Samples> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const measureFrom = start + warmupMs;
  const end = measureFrom + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = w; ; i += concurrency) {
        const t0 = performance.now();
        if (t0 >= end) return;
        const ok = await op(i);
        const t1 = performance.now();
        if (t0 >= measureFrom) {
          if (ok) latencies.push(t1 - t0);
          else errors++;
        }
      }
    }),
  );
  return { latencies, errors, seconds: durationMs / 1000 };
}

export function httpLoad(url: string, connections: number) {
  const pool = new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  return {
    pool,
    async request(method: 'GET' | 'PUT', path: string, headers: Record<string, string>, body?: string): Promise<boolean> {
      try {
        const res = await pool.request({ method, path, headers, body });
        await res.body.dump();
        return res.statusCode === 200;
      } catch {
        return false;
      }
    },
    close: () => pool.close(),
  };
}
