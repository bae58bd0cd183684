import { describe, expect, it } from 'vitest';
import { kpaDefaultsFromFlags } from './autoscaler-flags.ts';
import { KPA_DEFAULTS } from './kpa-settings.ts';

describe('kpaDefaultsFromFlags', () => {
  it('no flags: the defaults', () => {
    expect(kpaDefaultsFromFlags({})).toEqual(KPA_DEFAULTS);
  });
  it('--autoscaler-target-utilization-percentage sets both metrics; the concurrency-only flag overrides concurrency', () => {
    expect(kpaDefaultsFromFlags({ 'autoscaler-target-utilization-percentage': '60' })).toMatchObject({ targetUtilizationPercentage: 60, containerConcurrencyTargetPercentage: 60 });
    expect(kpaDefaultsFromFlags({ 'autoscaler-target-utilization-percentage': '60', 'autoscaler-container-concurrency-target-percentage': '90' })).toMatchObject({
      targetUtilizationPercentage: 60,
      containerConcurrencyTargetPercentage: 90,
    });
  });
  it('refuses a percentage outside (0, 100]', () => {
    expect(() => kpaDefaultsFromFlags({ 'autoscaler-container-concurrency-target-percentage': '0' })).toThrow(/container-concurrency-target-percentage/);
    expect(() => kpaDefaultsFromFlags({ 'autoscaler-container-concurrency-target-percentage': '101' })).toThrow(/\(0, 100\]/);
  });
  it('--autoscaler-target-burst-capacity: ≥ 0 or -1, default 200', () => {
    expect(kpaDefaultsFromFlags({}).targetBurstCapacity).toBe(200);
    expect(kpaDefaultsFromFlags({ 'autoscaler-target-burst-capacity': '-1' }).targetBurstCapacity).toBe(-1);
    expect(kpaDefaultsFromFlags({ 'autoscaler-target-burst-capacity': '0' }).targetBurstCapacity).toBe(0);
    expect(() => kpaDefaultsFromFlags({ 'autoscaler-target-burst-capacity': '-2' })).toThrow(/or -1/);
    expect(() => kpaDefaultsFromFlags({ 'autoscaler-target-burst-capacity': '-0.5' })).toThrow(/or -1/);
  });
});
