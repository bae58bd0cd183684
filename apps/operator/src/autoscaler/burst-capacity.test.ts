import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activatorDecision, excessBurstCapacity } from './burst-capacity.ts';

/**
 * knative/serving pkg/autoscaler/scaling/autoscaler_test.go: its DeciderSpec has
 * TotalValue = TargetValue / 0.75 and expects ⌊total × ready − TBC − panic⌋ (expectedEBC).
 * Columns: knative's case, target, targetBurstCapacity, panic concurrency, ready pods, EBC.
 */
const KNATIVE: Array<[string, number, number, number, number, number]> = [
  ['TestAutoscalerMetrics', 10, 100, 50, 1, -137],
  ['AutoscalerNoDataAtZeroNoAutoscale', 10, 100, 0, 1, -87],
  ['AutoscalerStableModeUnlimitedTBC', 181, -1, 26, 1, -1],
  ['Autoscaler0TBC', 10, 0, 49, 1, 0],
  ['AutoscalerStableModeNoChangeAlreadyScaled', 10, 100, 50, 5, -84],
  ['AutoscalerStableModeIncreaseWithSmallScaleUpRate', 1, 1982, 3.1, 2, -1983],
  ['AutoscalerStableModeDecreaseWithSmallScaleDownRate', 10, 1982, 1, 100, -650],
  ['AutoscalerPanicModeDoublePodCount', 10, 84, 100, 1, -171],
  ['TestAutoscalerUnpanicAfterSlowIncrease (end)', 1, 98, 56, 55, -81],
  ['TestAutoscalerPanicModeExponentialTrackAndStabilize (end)', 1, 101, 1296, 1296, 331],
  ['TestAutoscalerUseOnePodAsMinimumIfEndpointsNotFound (0 ready stays 0)', 10, 81, 888, 0, -969],
  ['TestAutoscalerUpdateTarget', 1, 71, 101, 10, -159],
];

describe('excess burst capacity (knative cases)', () => {
  it.each(KNATIVE)('%s', (_name, target, tbc, panic, ready, want) => {
    expect(excessBurstCapacity({ ready, total: target / 0.75, targetBurstCapacity: tbc, panic })).toBe(want);
  });

  it('is an integer, grows with ready workers and shrinks with load (property)', () => {
    const input = fc.record({
      ready: fc.integer({ min: 0, max: 1000 }),
      total: fc.double({ min: 0.01, max: 1000, noNaN: true }),
      targetBurstCapacity: fc.double({ min: 0.01, max: 10_000, noNaN: true }),
      panic: fc.double({ min: 0, max: 10_000, noNaN: true }),
    });
    fc.assert(
      fc.property(input, (i) => {
        const e = excessBurstCapacity(i);
        expect(Number.isInteger(e)).toBe(true);
        expect(excessBurstCapacity({ ...i, ready: i.ready + 1 })).toBeGreaterThanOrEqual(e);
        expect(excessBurstCapacity({ ...i, panic: i.panic + 1 })).toBeLessThanOrEqual(e);
      }),
    );
  });
});

// knative/serving pkg/reconciler/autoscaling/kpa/kpa.go: Proxy when want == 0 or EBC < 0, else Serve.
describe('activator decision', () => {
  const base = { ready: 2, total: 10, panic: 0 };
  const cases: Array<[string, number, number, number, boolean]> = [
    // name, targetBurstCapacity, want, panic, in the path
    ['-1: in the path at any scale and load', -1, 5, 0, true],
    ['-1: in the path at scale 0', -1, 0, 0, true],
    ['0: out of the path once scaled, even under load', 0, 1, 1000, false],
    ['0: in the path at scale 0', 0, 0, 0, true],
    ['positive, capacity to spare: out', 15, 2, 5, false], // 20 − 15 − 5 = 0
    ['positive, one request short: in', 15, 2, 5.5, true], // ⌊20 − 15 − 5.5⌋ = −1
    ['positive, spare capacity but wanted scale 0: in', 1, 0, 0, true],
  ];
  it.each(cases)('%s', (_name, tbc, want, panic, inPath) => {
    const d = activatorDecision(want, { ...base, targetBurstCapacity: tbc, panic });
    expect(d.inPath).toBe(inPath);
    expect(d.reason).toMatch(inPath ? /in the path/ : /out of the path/);
  });

  it('names the sum it decided on', () => {
    expect(activatorDecision(2, { ...base, targetBurstCapacity: 15, panic: 5.5 }).reason).toBe('activator in the path: excess burst capacity ⌊2 × 10 − 15 − 5.50⌋ = -1 < 0');
  });
});
