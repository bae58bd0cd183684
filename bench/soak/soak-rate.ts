/**
 * The soak's settings from the environment and the rate it runs at: half the capacity the probe
 * measured (closed-loop, every request answered as fast as the platform can), so the platform has
 * headroom for the churn and a failed request is never just overload.
 */
export const DEFAULT_SOAK_SECONDS = 180;

export interface SoakSettings {
  seconds: number;
  probeSeconds: number;
  probeConcurrency: number;
  /** Fraction of the probed capacity the soak offers (0.5). */
  fraction: number;
  /**
   * A fixed offered rate (req/s) instead of the fraction: the probe's capacity moves by a third
   * between runs on a shared machine, so an A/B of two builds compares them at one rate.
   */
  rate?: number;
}

const positive = (env: NodeJS.ProcessEnv, name: string, fallback: number, integer = true): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new Error(`${name} must be a positive ${integer ? 'whole ' : ''}number, got ${JSON.stringify(raw)}`);
  return n;
};

export function soakSettings(env: NodeJS.ProcessEnv): SoakSettings {
  const fraction = positive(env, 'ORRERY_BENCH_SOAK_FRACTION', 0.5, false);
  if (fraction > 1) throw new Error(`ORRERY_BENCH_SOAK_FRACTION must be at most 1, got ${fraction}`);
  return {
    seconds: positive(env, 'ORRERY_BENCH_SOAK_SECONDS', DEFAULT_SOAK_SECONDS),
    probeSeconds: positive(env, 'ORRERY_BENCH_SOAK_PROBE_SECONDS', 10),
    probeConcurrency: positive(env, 'ORRERY_BENCH_SOAK_PROBE_CONCURRENCY', 32),
    fraction,
    ...(env.ORRERY_BENCH_SOAK_RATE ? { rate: positive(env, 'ORRERY_BENCH_SOAK_RATE', 0) } : {}),
  };
}

/** Requests per second for the soak: the fixed rate if set, else `fraction` of the probed rate, whole, at least 1. */
export function soakRate(probedRps: number, fraction: number, fixed?: number): number {
  if (fixed !== undefined) return fixed;
  if (!Number.isFinite(probedRps) || probedRps <= 0) throw new Error(`the capacity probe measured no throughput (${probedRps} req/s): the platform answered nothing`);
  return Math.max(1, Math.floor(probedRps * fraction));
}
