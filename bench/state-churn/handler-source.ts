/**
 * The functions the benchmark deploys (inline sources) and the parser for what the stateful one
 * reports about itself in response headers.
 *
 * The stateful handler is the seed's sticky-cache pattern: each worker keeps the last value and
 * version it wrote per key in memory, so a request that lands on the key's owner costs one state
 * call (a compare-and-swap on the cached version) and a request that lands elsewhere costs a read
 * first. A cached version another worker has since overwritten fails the CAS (`stale`), then
 * reads and retries. Every state call is timed inside the handler, around the SDK call, and
 * reported as `x-bench-state: g0.412,c0.934` (op letter, milliseconds; g = get, c = cas).
 */
export const STATEFUL_HANDLER = `
const cache = new Map();
export default async (request, ctx) => {
  const key = request.headers.get('x-bench-key') ?? 'none';
  const calls = [];
  const timed = async (op, call) => {
    const t0 = performance.now();
    try {
      return await call();
    } finally {
      calls.push(op + (performance.now() - t0).toFixed(3));
    }
  };
  let entry = cache.get(key);
  let outcome = entry ? 'hit' : 'miss';
  for (let attempt = 0; attempt < 8; attempt++) {
    if (!entry) {
      const current = await timed('g', () => ctx.state.get(key));
      entry = { value: current?.value ?? 0, version: current?.version ?? 0 };
    }
    const next = entry.value + 1;
    try {
      const { version } = await timed('c', () => ctx.state.cas(key, entry.version, next));
      cache.set(key, { value: next, version });
      return new Response(String(next), { headers: { 'x-bench-worker': String(process.pid), 'x-bench-cache': outcome, 'x-bench-state': calls.join(',') } });
    } catch (err) {
      if (err?.code !== 'version_conflict') throw err;
      cache.delete(key);
      entry = undefined;
      outcome = 'stale';
    }
  }
  return Response.json({ error: 'too many concurrent writers', code: 'version_conflict' }, { status: 409 });
};
`;

export const STATELESS_HANDLER = `export default async () => new Response('ok', { headers: { 'x-bench-worker': String(process.pid) } });`;

export type StateOp = 'get' | 'cas';
export interface StateCall {
  op: StateOp;
  ms: number;
}

const OPS: Record<string, StateOp> = { g: 'get', c: 'cas' };

/** Parses `x-bench-state`; anything malformed is dropped (never guessed). */
export function parseStateCalls(header: string | undefined): StateCall[] {
  if (!header) return [];
  const out: StateCall[] = [];
  for (const part of header.split(',')) {
    const op = OPS[part.charAt(0)];
    const text = part.slice(1);
    const ms = Number(text);
    if (op && text.length > 0 && Number.isFinite(ms) && ms >= 0) out.push({ op, ms });
  }
  return out;
}

export type CacheOutcome = 'hit' | 'miss' | 'stale';
export function parseCacheOutcome(header: string | undefined): CacheOutcome | undefined {
  return header === 'hit' || header === 'miss' || header === 'stale' ? header : undefined;
}
