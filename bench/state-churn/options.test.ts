import { describe, expect, it } from 'vitest';
import { parseOptions } from './options.ts';

describe('parseOptions', () => {
  it('has short defaults', () => {
    const o = parseOptions([], {});
    expect(o).toMatchObject({ steadySeconds: 15, churnSeconds: 30, churnEverySeconds: 3, workers: 3, keys: 200, concurrency: 8, coldSamples: 6, signal: 'SIGTERM' });
  });

  it('a flag wins over the environment, the environment over the default', () => {
    const env = { ORRERY_BENCH_CHURN_KEYS: '50', ORRERY_BENCH_CHURN_WORKERS: '4', ORRERY_BENCH_CHURN_SIGNAL: 'sigkill' };
    const o = parseOptions(['--keys', '70', '--churn-every-seconds', '1.5'], env);
    expect(o.keys).toBe(70);
    expect(o.workers).toBe(4);
    expect(o.churnEverySeconds).toBe(1.5);
    expect(o.signal).toBe('SIGKILL');
  });

  it('refuses what would make a meaningless run, saying which flag', () => {
    expect(() => parseOptions(['--workers', '1'], {})).toThrow(/--workers .* ≥ 2/);
    expect(() => parseOptions(['--keys', '2.5'], {})).toThrow(/--keys .*integer/);
    expect(() => parseOptions([], { ORRERY_BENCH_CHURN_CONCURRENCY: 'many' })).toThrow(/ORRERY_BENCH_CHURN_CONCURRENCY/);
    expect(() => parseOptions(['--signal', 'HUP'], {})).toThrow(/TERM or KILL/);
    expect(() => parseOptions(['--churn-seconds', '2', '--churn-every-seconds', '3'], {})).toThrow(/nothing churns/);
    expect(() => parseOptions(['--no-such-flag'], {})).toThrow();
  });
});
