import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { throttleWaitMs, withThrottleRetry } from './throttle-retry.ts';

const apiErr = (code: number, headers: Record<string, string> = {}) => new ApiException(code, 'x', '{}', headers);

describe('throttleWaitMs', () => {
  it.each([
    [apiErr(429), 1000],
    [apiErr(429, { 'Retry-After': '3' }), 3000],
    [apiErr(429, { 'retry-after': '600' }), 10_000],
    [apiErr(429, { 'retry-after': 'soon' }), 1000],
    [apiErr(503, { 'retry-after': '2' }), 2000],
  ])('waits after a throttled answer', (err, want) => {
    expect(throttleWaitMs(err, 1000, 10_000)).toBe(want);
  });

  it.each([[apiErr(503)], [apiErr(409)], [apiErr(500, { 'retry-after': '1' })], [new Error('ECONNREFUSED')], [undefined]])('does not repeat anything else', (err) => {
    expect(throttleWaitMs(err, 1000, 10_000)).toBeUndefined();
  });
});

describe('withThrottleRetry', () => {
  it('repeats throttled calls with the asked wait, then returns', async () => {
    const waits: number[] = [];
    let calls = 0;
    const out = await withThrottleRetry(
      async () => {
        if (++calls < 3) throw apiErr(429, { 'retry-after': '2' });
        return 'ok';
      },
      { sleep: async (ms) => void waits.push(ms) },
    );
    expect(out).toBe('ok');
    expect(waits).toEqual([2000, 2000]);
  });

  it('gives up after its attempts with the last error, and never repeats other errors', async () => {
    let calls = 0;
    await expect(withThrottleRetry(async () => { calls++; throw apiErr(429); }, { attempts: 3, sleep: async () => {} })).rejects.toMatchObject({ code: 429 });
    expect(calls).toBe(3);
    calls = 0;
    await expect(withThrottleRetry(async () => { calls++; throw apiErr(409); }, { sleep: async () => {} })).rejects.toMatchObject({ code: 409 });
    expect(calls).toBe(1);
  });
});
