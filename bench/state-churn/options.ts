/**
 * Parameters of bench/state-churn: a flag, else an environment variable, else a short default
 * (the whole run takes about 1.5–2 minutes on 2 cores).
 */
import { parseArgs } from 'node:util';

export interface ChurnOptions {
  /** Measured seconds without churn (the owner-hit and request-latency baseline). */
  steadySeconds: number;
  /** Measured seconds with churn. */
  churnSeconds: number;
  /** One worker removed (and replaced by the pool executor) this often. */
  churnEverySeconds: number;
  /** Specialized workers of the function (its minScale = maxScale). */
  workers: number;
  keys: number;
  /** Closed-loop clients (one request in flight each). */
  concurrency: number;
  /** Cold starts per kind (stateful, stateless), alternated. */
  coldSamples: number;
  /** Seconds of the raw postgres.js baseline, split in two slices around the routed phases. */
  rawSeconds: number;
  /** Postgres connections, for statesvc and for the raw baseline alike. */
  pgPool: number;
  /** How a worker is removed: SIGTERM (drains, like a pod deletion) or SIGKILL (a crash). */
  signal: 'SIGTERM' | 'SIGKILL';
  seed: number;
}

const SPEC = {
  'steady-seconds': { env: 'ORRERY_BENCH_CHURN_STEADY_SECONDS', def: 15, min: 1 },
  'churn-seconds': { env: 'ORRERY_BENCH_CHURN_SECONDS', def: 30, min: 1 },
  'churn-every-seconds': { env: 'ORRERY_BENCH_CHURN_EVERY_SECONDS', def: 3, min: 0.5 },
  workers: { env: 'ORRERY_BENCH_CHURN_WORKERS', def: 3, min: 2 },
  keys: { env: 'ORRERY_BENCH_CHURN_KEYS', def: 200, min: 1 },
  concurrency: { env: 'ORRERY_BENCH_CHURN_CONCURRENCY', def: 8, min: 1 },
  'cold-samples': { env: 'ORRERY_BENCH_CHURN_COLD_SAMPLES', def: 6, min: 1 },
  'raw-seconds': { env: 'ORRERY_BENCH_CHURN_RAW_SECONDS', def: 8, min: 1 },
  'pg-pool': { env: 'ORRERY_BENCH_CHURN_PG_POOL', def: 10, min: 2 },
  seed: { env: 'ORRERY_BENCH_CHURN_SEED', def: 1, min: 1 },
} as const;

export const USAGE = `npx tsx bench/state-churn/index.ts ${Object.entries(SPEC)
  .map(([flag, s]) => `[--${flag} ${s.def}]`)
  .join(' ')} [--signal TERM|KILL]
(each flag also as an environment variable: ${Object.values(SPEC)
  .map((s) => s.env)
  .join(', ')}, ORRERY_BENCH_CHURN_SIGNAL)`;

export function parseOptions(argv: string[], env: Record<string, string | undefined>): ChurnOptions {
  const { values } = parseArgs({
    args: argv,
    options: { ...Object.fromEntries(Object.keys(SPEC).map((k) => [k, { type: 'string' as const }])), signal: { type: 'string' } },
    strict: true,
  });
  const v = values as Record<string, string | undefined>;
  const num = (flag: keyof typeof SPEC): number => {
    const s = SPEC[flag];
    const raw = v[flag] ?? env[s.env];
    if (raw === undefined || raw === '') return s.def;
    const n = Number(raw);
    const integer = !flag.endsWith('seconds');
    if (!Number.isFinite(n) || n < s.min || (integer && !Number.isInteger(n))) {
      throw new Error(`--${flag} (${s.env}) must be ${integer ? 'an integer' : 'a number'} ≥ ${s.min}, got "${raw}"`);
    }
    return n;
  };
  const sig = (v.signal ?? env.ORRERY_BENCH_CHURN_SIGNAL ?? 'TERM').toUpperCase().replace(/^SIG/, '');
  if (sig !== 'TERM' && sig !== 'KILL') throw new Error(`--signal (ORRERY_BENCH_CHURN_SIGNAL) must be TERM or KILL, got "${sig}"`);
  const o: ChurnOptions = {
    steadySeconds: num('steady-seconds'),
    churnSeconds: num('churn-seconds'),
    churnEverySeconds: num('churn-every-seconds'),
    workers: num('workers'),
    keys: num('keys'),
    concurrency: num('concurrency'),
    coldSamples: num('cold-samples'),
    rawSeconds: num('raw-seconds'),
    pgPool: num('pg-pool'),
    signal: sig === 'TERM' ? 'SIGTERM' : 'SIGKILL',
    seed: num('seed'),
  };
  if (o.churnEverySeconds >= o.churnSeconds) throw new Error(`--churn-every-seconds (${o.churnEverySeconds}) must be below --churn-seconds (${o.churnSeconds}), or nothing churns`);
  return o;
}
