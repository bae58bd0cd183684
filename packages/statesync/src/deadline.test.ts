import { describe, expect, it } from 'vitest';
import { OpDeadline, OpTimeoutError, withDeadline } from './deadline.ts';
import type { StateSyncTimers } from './options.ts';

/** Timers fired by hand: the test decides when a deadline passes. */
class ManualTimers implements StateSyncTimers {
  pending = new Map<number, { fn: () => void; ms: number }>();
  private next = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { fn, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  fireAll(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const t of due) t.fn();
  }
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('OpDeadline', () => {
  it('check passes until expired, then throws naming the operation and the timeout', () => {
    const d = new OpDeadline('pull of ns', 150);
    expect(() => d.check()).not.toThrow();
    d.expired = true;
    expect(() => d.check()).toThrow(OpTimeoutError);
    expect(() => d.check()).toThrow('statesync pull of ns exceeded its operation timeout of 150 ms');
  });
});

describe('withDeadline: one deadline per operation', () => {
  it('work that finishes first resolves and clears its timer', async () => {
    const timers = new ManualTimers();
    await expect(withDeadline('push of a', 100, timers, () => Promise.resolve(7))).resolves.toBe(7);
    expect(timers.pending.size).toBe(0);
  });

  it('work that fails first rejects with its own error and clears its timer', async () => {
    const timers = new ManualTimers();
    await expect(withDeadline('push of a', 100, timers, () => Promise.reject(new Error('redis down')))).rejects.toThrow('redis down');
    expect(timers.pending.size).toBe(0);
  });

  it('a deadline that passes first rejects with OpTimeoutError and expires the work’s deadline', async () => {
    const timers = new ManualTimers();
    let seen: OpDeadline | undefined;
    let release!: () => void;
    const p = withDeadline('pull of b', 250, timers, (d) => {
      seen = d;
      return new Promise<void>((r) => (release = r));
    });
    expect([...timers.pending.values()].map((t) => t.ms)).toEqual([250]);
    timers.fireAll();
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpTimeoutError);
    expect(err).toMatchObject({ operation: 'pull of b', timeoutMs: 250 });
    expect(seen?.expired).toBe(true);
    expect(() => seen!.check()).toThrow(OpTimeoutError); // the abandoned work stops at its next round trip
    release();
    await tick();
  });

  it('an abandoned operation failing later is not an unhandled rejection', async () => {
    const timers = new ManualTimers();
    let fail!: (e: Error) => void;
    const p = withDeadline('pull of c', 10, timers, () => new Promise<void>((_, rej) => (fail = rej)));
    timers.fireAll();
    await expect(p).rejects.toBeInstanceOf(OpTimeoutError);
    fail(new Error('late'));
    await tick();
  });

  it('each operation has its own deadline: a timed-out one does not expire the next', async () => {
    const timers = new ManualTimers();
    const first = withDeadline('pull of a', 100, timers, () => new Promise<void>(() => undefined));
    timers.fireAll();
    await expect(first).rejects.toBeInstanceOf(OpTimeoutError);
    let second: OpDeadline | undefined;
    await withDeadline('push of a', 100, timers, (d) => {
      second = d;
      return Promise.resolve();
    });
    expect(second?.expired).toBe(false);
  });
});
