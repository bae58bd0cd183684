import { describe, expect, it } from 'vitest';
import { soakRate, soakSettings } from './soak-rate.ts';

describe('soakSettings', () => {
  it('defaults to the 3-minute run at half the capacity', () => {
    expect(soakSettings({})).toEqual({ seconds: 180, probeSeconds: 10, probeConcurrency: 32, fraction: 0.5 });
  });

  it('reads the 30-minute run from ORRERY_BENCH_SOAK_SECONDS', () => {
    expect(soakSettings({ ORRERY_BENCH_SOAK_SECONDS: '1800' }).seconds).toBe(1800);
  });

  it('reads a fixed rate from ORRERY_BENCH_SOAK_RATE', () => {
    expect(soakSettings({ ORRERY_BENCH_SOAK_RATE: '400' }).rate).toBe(400);
    expect(() => soakSettings({ ORRERY_BENCH_SOAK_RATE: '40.5' })).toThrow(/ORRERY_BENCH_SOAK_RATE must be a positive whole number/);
  });

  it('refuses nonsense with the variable named', () => {
    expect(() => soakSettings({ ORRERY_BENCH_SOAK_SECONDS: '3m' })).toThrow(/ORRERY_BENCH_SOAK_SECONDS/);
    expect(() => soakSettings({ ORRERY_BENCH_SOAK_SECONDS: '0' })).toThrow(/positive/);
    expect(() => soakSettings({ ORRERY_BENCH_SOAK_FRACTION: '1.5' })).toThrow(/at most 1/);
  });
});

describe('soakRate', () => {
  it('is the given fraction of the probed rate, whole', () => {
    expect(soakRate(901, 0.5)).toBe(450);
    expect(soakRate(1.5, 0.5)).toBe(1);
  });

  it('is the fixed rate when one is set, whatever the probe measured', () => {
    expect(soakRate(901, 0.5, 300)).toBe(300);
  });

  it('refuses a probe that measured nothing', () => {
    expect(() => soakRate(0, 0.5)).toThrow(/no throughput/);
    expect(() => soakRate(Number.NaN, 0.5)).toThrow(/no throughput/);
  });
});
