import { describe, expect, it } from 'vitest';
import type { Autoscaling } from '@orrery/spec';
import { KPA_DEFAULTS, type KpaDefaults, kpaSettings } from './kpa-settings.ts';
import { resolveMetricTarget } from './metric-target.ts';

/**
 * The cases of knative/serving's TestResolveMetricTarget (pkg/reconciler/autoscaling/resources),
 * restated for Orrery's fields. Knative's test config uses a container-concurrency utilisation
 * of 100 % and an rps utilisation of 70 %, a concurrency default of 100 and an rps default of
 * 200; `cfg` changes that config the way each Knative case does.
 */
const KNATIVE_TEST_CONFIG: KpaDefaults = {
  ...KPA_DEFAULTS,
  containerConcurrencyTargetPercentage: 100,
  targetUtilizationPercentage: 70,
  containerConcurrencyTargetDefault: 100,
  rpsTargetDefault: 200,
};

interface Case {
  name: string;
  autoscaling?: Partial<Autoscaling>;
  containerConcurrency?: number;
  cfg?: Partial<KpaDefaults>;
  target: number;
  total: number;
}

const CASES: Case[] = [
  { name: 'nothing set: the concurrency default', target: 100, total: 100 },
  { name: 'concurrency default at 80 % utilisation', cfg: { containerConcurrencyTargetPercentage: 80 }, target: 80, total: 100 },
  { name: 'another concurrency default and utilisation', cfg: { containerConcurrencyTargetPercentage: 30, containerConcurrencyTargetDefault: 2 }, target: 0.6, total: 2 },
  { name: 'containerConcurrency 12, 80 % platform-wide, 75 % on the function', containerConcurrency: 12, autoscaling: { targetUtilizationPercentage: 75 }, cfg: { containerConcurrencyTargetPercentage: 80 }, target: 9, total: 12 },
  { name: 'containerConcurrency 10 at 80 %', containerConcurrency: 10, cfg: { containerConcurrencyTargetPercentage: 80 }, target: 8, total: 10 },
  { name: 'containerConcurrency 1 at 80 %', containerConcurrency: 1, cfg: { containerConcurrencyTargetPercentage: 80 }, target: 0.8, total: 1 },
  { name: 'containerConcurrency 1', containerConcurrency: 1, target: 1, total: 1 },
  { name: 'containerConcurrency 10', containerConcurrency: 10, target: 10, total: 10 },
  { name: 'target 1', autoscaling: { target: 1 }, target: 1, total: 1 },
  { name: 'target 1 at 0.1 %: never under the 0.01 floor', autoscaling: { target: 1 }, cfg: { containerConcurrencyTargetPercentage: 0.1 }, target: 0.01, total: 1 },
  { name: 'target 1 at 75 %', autoscaling: { target: 1 }, cfg: { containerConcurrencyTargetPercentage: 75 }, target: 0.75, total: 1 },
  { name: 'target 10 at 75 %', autoscaling: { target: 10 }, cfg: { containerConcurrencyTargetPercentage: 75 }, target: 7.5, total: 10 },
  { name: 'containerConcurrency 10 above target 1: the target', containerConcurrency: 10, autoscaling: { target: 1 }, target: 1, total: 1 },
  { name: 'target 500 above the concurrency default: the target (containerConcurrency 0 caps nothing)', autoscaling: { target: 500 }, target: 500, total: 500 },
  { name: 'target 10 above containerConcurrency 1: containerConcurrency', containerConcurrency: 1, autoscaling: { target: 10 }, target: 1, total: 1 },
  { name: 'rps: the rps default, containerConcurrency ignored', containerConcurrency: 1, autoscaling: { metric: 'rps' }, target: 140, total: 200 },
  { name: 'rps: target 1', autoscaling: { metric: 'rps', target: 1 }, target: 0.7, total: 1 },
  { name: 'rps: 75 % on the function', autoscaling: { metric: 'rps', targetUtilizationPercentage: 75 }, target: 150, total: 200 },
  { name: 'rps: target 300 above the rps default', autoscaling: { metric: 'rps', target: 300 }, target: 210, total: 300 },
];

describe('metric target (knative ResolveMetricTarget)', () => {
  it.each(CASES)('$name', (c) => {
    const s = kpaSettings(c.autoscaling ?? {}, c.containerConcurrency ?? 0, { ...KNATIVE_TEST_CONFIG, ...c.cfg });
    expect(s.target).toBeCloseTo(c.target, 10);
    expect(s.total).toBeCloseTo(c.total, 10);
  });

  it('issue 21: target 200 with containerConcurrency 0 is a total of 200, 140 at the default 70 %', () => {
    const s = kpaSettings({ target: 200 }, 0);
    expect(s.total).toBe(200);
    expect(s.target).toBeCloseTo(140, 10);
  });
});

describe('resolveMetricTarget reasons', () => {
  const d = KPA_DEFAULTS;
  it('names where the total came from', () => {
    expect(resolveMetricTarget({ target: 200 }, 0, d).reason).toBe('concurrency total 200 from autoscaling.target × 70 % → target 140');
    expect(resolveMetricTarget({ target: 40 }, 10, d).reason).toBe('concurrency total 10 from containerConcurrency (under target 40) × 70 % → target 7');
    expect(resolveMetricTarget({}, 0, d).reason).toBe('concurrency total 100 from concurrency default × 70 % → target 70');
    expect(resolveMetricTarget({ metric: 'rps' }, 5, d).reason).toBe('rps total 200 from rps default × 70 % → target 140');
    expect(resolveMetricTarget({ target: 1 }, 0, { ...d, containerConcurrencyTargetPercentage: 0.1 }).reason).toBe('concurrency total 1 from autoscaling.target × 0.1 % → target 0.01 (floor 0.01)');
  });
  it('uses each metric its own platform utilisation; the function’s wins for both', () => {
    const split = { ...d, containerConcurrencyTargetPercentage: 50, targetUtilizationPercentage: 80 };
    expect(resolveMetricTarget({}, 10, split).target).toBe(5);
    expect(resolveMetricTarget({ metric: 'rps', target: 10 }, 0, split).target).toBe(8);
    expect(resolveMetricTarget({ targetUtilizationPercentage: 100 }, 10, split).target).toBe(10);
    expect(resolveMetricTarget({ metric: 'rps', target: 10, targetUtilizationPercentage: 100 }, 0, split).target).toBe(10);
  });
  it('a target equal to containerConcurrency is that total', () => {
    expect(resolveMetricTarget({ target: 10 }, 10, d).total).toBe(10);
  });
});
