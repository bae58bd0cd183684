import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  it('coalesces a key added while it waits', async () => {
    const runs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(
      async (k) => {
        runs.push(k);
        if (k === 'blocker') await gate;
      },
      { concurrency: 1 },
    );
    q.add('blocker'); // occupies the only worker, so the others wait
    q.add('a');
    q.add('b');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    release();
    await q.idle();
    expect(runs).toEqual(['blocker', 'a', 'b']);
  });

  it('a held queue collects keys and runs them only after release()', async () => {
    const runs: string[] = [];
    const q = new WorkQueue(async (k) => void runs.push(k), { held: true });
    q.add('a');
    q.add('b');
    q.add('a');
    await tick(20);
    expect(runs).toEqual([]);
    expect(q.length).toBe(2);
    q.release();
    await q.idle();
    expect(runs).toEqual(['a', 'b']);
    q.add('c');
    await q.idle();
    expect(runs).toEqual(['a', 'b', 'c']);
  });

  it('never runs one key twice at once, and re-runs it once when added during processing', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(
      async () => {
        inFlight++;
        runs++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (runs === 1) await gate;
        inFlight--;
      },
      { concurrency: 4 },
    );
    q.add('k');
    await tick();
    q.add('k');
    q.add('k');
    release();
    await tick(20);
    await q.idle();
    expect(maxInFlight).toBe(1);
    expect(runs).toBe(2);
  });

  it('runs different keys in parallel up to the concurrency', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const q = new WorkQueue(
      async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await tick(10);
        inFlight--;
      },
      { concurrency: 3 },
    );
    for (const k of ['a', 'b', 'c', 'd', 'e']) q.add(k);
    await q.idle();
    expect(maxInFlight).toBe(3);
  });

  it('retries failures with growing backoff and resets after success', async () => {
    const attempts: number[] = [];
    const errors: number[] = [];
    let n = 0;
    const q = new WorkQueue(
      async () => {
        n++;
        attempts.push(Date.now());
        if (n < 3) throw new Error('not yet');
      },
      { baseDelayMs: 20, maxDelayMs: 1000, onError: (_k, _e, attempt) => errors.push(attempt) },
    );
    q.add('x');
    for (let i = 0; i < 100 && n < 3; i++) await tick(10);
    expect(n).toBe(3);
    expect(errors).toEqual([1, 2]);
    expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(35); // second retry waited ~40 ms
    expect(q.backoffMs(1)).toBe(20);
    expect(q.backoffMs(3)).toBe(80);
    expect(q.backoffMs(50)).toBe(1000);
    q.stop();
  });

  it('stop drops waiting keys and pending timers', async () => {
    const runs: string[] = [];
    const q = new WorkQueue(async (k) => void runs.push(k));
    q.addAfter('later', 20);
    q.stop();
    q.add('now');
    await tick(40);
    expect(runs).toEqual([]);
  });

  it('reports every run with its outcome and duration', async () => {
    const seen: Array<[string, string, number]> = [];
    let n = 0;
    const q = new WorkQueue(
      async (k) => {
        await tick(15);
        if (k === 'bad' && n++ === 0) throw new Error('once');
      },
      { baseDelayMs: 5, onProcessed: (k, outcome, seconds) => seen.push([k, outcome, seconds]) },
    );
    q.add('good');
    q.add('bad');
    for (let i = 0; i < 50 && seen.length < 3; i++) await tick(10);
    q.stop();
    expect(seen.map(([k, o]) => `${k}:${o}`).sort()).toEqual(['bad:error', 'bad:success', 'good:success']);
    for (const [, , seconds] of seen) expect(seconds).toBeGreaterThanOrEqual(0.01);
  });
});
