import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeSyncable } from './testing/fake-syncable.ts';
import { dropPrefix, testPrefix, testRedis, waitFor } from './testing/redis.ts';
import type { StateSyncTimers } from './options.ts';
import { createStateSync } from './state-sync.ts';

/** Fake timers: nothing fires until the test says so, and every requested delay is visible. */
class ManualTimers implements StateSyncTimers {
  private nextId = 1;
  readonly pending = new Map<number, { fn: () => void; ms: number }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { fn, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Loop timers only (the op timeout and stop wait use distinctive lengths). */
  loopTimers(exclude: number[]): Array<[number, number]> {
    return [...this.pending].filter(([, t]) => !exclude.includes(t.ms)).map(([id, t]) => [id, t.ms]);
  }
  fire(id: number): void {
    const t = this.pending.get(id);
    if (!t) throw new Error(`no timer ${id}`);
    this.pending.delete(id);
    t.fn();
  }
}

const OP_TIMEOUT = 987_654;
const STOP_WAIT = 876_543;
let redis: Redis;
const prefix = testPrefix();

beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  await dropPrefix(redis, prefix);
  await redis.quit();
});

describe('sync loop timing (fake timers)', () => {
  it('first delay in [0, period/2), ±10 % jitter, doubling backoff to the cap, reset on success', { timeout: 30_000 }, async () => {
    const timers = new ManualTimers();
    let r = 0;
    let failing = false;
    const period = 10_000;
    const cap = 60_000;
    const sync = createStateSync(redis, {
      keyPrefix: prefix,
      syncPeriodMs: period,
      maxBackoffMs: cap,
      opTimeoutMs: OP_TIMEOUT,
      stopWaitTimeoutMs: STOP_WAIT,
      timers,
      random: () => r,
      env: {},
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    sync.register(fakeSyncable('loop', { hooks: true, failPull: () => failing }));

    r = 0.999999;
    sync.start();
    let loop = timers.loopTimers([OP_TIMEOUT, STOP_WAIT]);
    expect(loop).toHaveLength(1);
    expect(loop[0]![1]).toBeGreaterThanOrEqual(0);
    expect(loop[0]![1]).toBeLessThan(period / 2);

    /** Fire the loop timer, let the (real Redis) cycle finish, return the next requested wait. */
    const step = async (): Promise<number> => {
      const [id] = timers.loopTimers([OP_TIMEOUT, STOP_WAIT])[0]!;
      timers.fire(id);
      await waitFor(() => timers.loopTimers([OP_TIMEOUT, STOP_WAIT]).length === 1, 10_000, 'the next loop timer');
      return timers.loopTimers([OP_TIMEOUT, STOP_WAIT])[0]![1];
    };

    // Healthy: the period ± 10 %, at both ends of the random range.
    r = 0;
    expect(await step()).toBe(9_000);
    r = 0.999999;
    const high = await step();
    expect(high).toBeGreaterThan(10_900);
    expect(high).toBeLessThanOrEqual(11_000);

    // Failing: 2p, 4p, then the cap (never above it), backoff status follows.
    failing = true;
    r = 0.5;
    expect(await step()).toBe(20_000);
    expect(sync.status().backoffMs).toBe(20_000);
    expect(await step()).toBe(40_000);
    r = 0.999999;
    expect(await step()).toBe(cap);
    expect(await step()).toBe(cap);
    expect(sync.status().backoffMs).toBe(cap);
    expect(sync.status().cycles.error).toBe(4);
    expect(sync.status().syncables[0]?.lastError).toMatch(/refused by test/);

    // Recovery resets to the period.
    failing = false;
    r = 0.5;
    expect(await step()).toBe(period);
    expect(sync.status().backoffMs).toBe(period);

    await sync.stop();
    expect(timers.loopTimers([OP_TIMEOUT, STOP_WAIT])).toHaveLength(0);
    loop = timers.loopTimers([]);
    expect(loop).toHaveLength(0); // no op-timeout timer left behind either
  });
});
