import { parseDurationMs } from '@orrery/spec';
import { KPA_DEFAULTS, type KpaDefaults } from './kpa-settings.ts';

/** Operator flags for the platform-wide KPA defaults (knative's config-autoscaler). */
export const AUTOSCALER_FLAGS = {
  'autoscaler-stable-window': { type: 'string' },
  'autoscaler-panic-window-percentage': { type: 'string' },
  'autoscaler-panic-threshold-percentage': { type: 'string' },
  'autoscaler-target-utilization-percentage': { type: 'string' },
  'autoscaler-container-concurrency-target-percentage': { type: 'string' },
  'autoscaler-container-concurrency-target-default': { type: 'string' },
  'autoscaler-rps-target-default': { type: 'string' },
  'autoscaler-max-scale-up-rate': { type: 'string' },
  'autoscaler-max-scale-down-rate': { type: 'string' },
  'autoscaler-scale-to-zero-grace-period': { type: 'string' },
  'autoscaler-scale-down-delay': { type: 'string' },
  'autoscaler-initial-scale': { type: 'string' },
  'autoscaler-target-burst-capacity': { type: 'string' },
  'autoscaler-tick': { type: 'string' },
} as const;

export const AUTOSCALER_USAGE = `  [--autoscaler-stable-window 60s] [--autoscaler-panic-window-percentage 10]
  [--autoscaler-panic-threshold-percentage 200] [--autoscaler-target-utilization-percentage 70]
  [--autoscaler-container-concurrency-target-percentage 70]
  [--autoscaler-container-concurrency-target-default 100] [--autoscaler-rps-target-default 200]
  [--autoscaler-max-scale-up-rate 1000] [--autoscaler-max-scale-down-rate 2]
  [--autoscaler-scale-to-zero-grace-period 30s] [--autoscaler-scale-down-delay 0s]
  [--autoscaler-initial-scale 1] [--autoscaler-target-burst-capacity 200] [--autoscaler-tick 2s]`;

type FlagValues = Partial<Record<keyof typeof AUTOSCALER_FLAGS, string>>;

/** Flag values → KPA defaults; throws a message naming the bad flag. */
export function kpaDefaultsFromFlags(v: FlagValues): KpaDefaults {
  const num = (name: keyof FlagValues, dflt: number, min: number): number => {
    const raw = v[name];
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}, got ${JSON.stringify(raw)}`);
    return n;
  };
  const pct = (name: keyof FlagValues, dflt: number): number => {
    const n = num(name, dflt, 0);
    if (n <= 0 || n > 100) throw new Error(`--${name} must be a percentage in (0, 100], got ${JSON.stringify(v[name])}`);
    return n;
  };
  const burst = (name: keyof FlagValues, dflt: number): number => {
    const n = num(name, dflt, -Infinity);
    if (n < 0 && n !== -1) throw new Error(`--${name} must be ≥ 0, or -1 (the activator always stays in the path), got ${JSON.stringify(v[name])}`);
    return n;
  };
  const dur = (name: keyof FlagValues, dflt: number, minMs: number): number => {
    const raw = v[name];
    if (raw === undefined) return dflt;
    const ms = parseDurationMs(raw);
    if (!Number.isFinite(ms) || ms < minMs) throw new Error(`--${name} must be a duration like "30s" ≥ ${minMs} ms, got ${JSON.stringify(raw)}`);
    return ms;
  };
  const d = KPA_DEFAULTS;
  // One utilisation for both metrics, as before; Knative's concurrency-only knob overrides it there.
  const utilization = num('autoscaler-target-utilization-percentage', d.targetUtilizationPercentage, 1);
  return {
    stableWindowMs: dur('autoscaler-stable-window', d.stableWindowMs, 1000),
    panicWindowPercentage: num('autoscaler-panic-window-percentage', d.panicWindowPercentage, 1),
    panicThresholdPercentage: num('autoscaler-panic-threshold-percentage', d.panicThresholdPercentage, 110),
    targetUtilizationPercentage: utilization,
    containerConcurrencyTargetPercentage: pct('autoscaler-container-concurrency-target-percentage', utilization),
    containerConcurrencyTargetDefault: num('autoscaler-container-concurrency-target-default', d.containerConcurrencyTargetDefault, 0.01),
    rpsTargetDefault: num('autoscaler-rps-target-default', d.rpsTargetDefault, 0.01),
    maxScaleUpRate: num('autoscaler-max-scale-up-rate', d.maxScaleUpRate, 1.0001),
    maxScaleDownRate: num('autoscaler-max-scale-down-rate', d.maxScaleDownRate, 1.0001),
    scaleToZeroGracePeriodMs: dur('autoscaler-scale-to-zero-grace-period', d.scaleToZeroGracePeriodMs, 0),
    scaleDownDelayMs: dur('autoscaler-scale-down-delay', d.scaleDownDelayMs, 0),
    initialScale: num('autoscaler-initial-scale', d.initialScale, 0),
    targetBurstCapacity: burst('autoscaler-target-burst-capacity', d.targetBurstCapacity),
    tickMs: dur('autoscaler-tick', d.tickMs, 50),
  };
}
