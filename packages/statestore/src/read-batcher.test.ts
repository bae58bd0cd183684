import { describe, expect, it } from 'vitest';
import { ReadBatcher } from './read-batcher.ts';

/** A batcher whose flushes run when the test says so, recording every load. */
function harness(opts: { maxKeys?: number; aloneBelow?: number; fail?: (keys: string[]) => Error | undefined } = {}) {
  const flushes: Array<() => void> = [];
  const loads: Array<{ scope: string; keys: string[] }> = [];
  const data = new Map([['a/x', 'X'], ['a/y', 'Y'], ['b/x', 'BX']]);
  const batcher = new ReadBatcher<string, string>({
    load: async (scope, keys) => {
      loads.push({ scope, keys });
      const err = opts.fail?.(keys);
      if (err) throw err;
      return keys.map((k) => data.get(`${scope}/${k}`) ?? null);
    },
    schedule: (f) => flushes.push(f),
    maxKeys: opts.maxKeys,
    // Batching from the first read unless a test says otherwise.
    aloneBelow: opts.aloneBelow ?? 0,
  });
  const flush = () => {
    const f = flushes.splice(0);
    for (const fn of f) fn();
  };
  return { batcher, loads, flushes, flush };
}

describe('ReadBatcher', () => {
  it('sends the reads of one iteration as one load per scope and answers each read with its own value', async () => {
    const h = harness();
    const reads = [h.batcher.get('a', 'a', 'x'), h.batcher.get('a', 'a', 'y'), h.batcher.get('a', 'a', 'missing'), h.batcher.get('b', 'b', 'x')];
    expect(h.flushes).toHaveLength(1); // one flush scheduled, however many reads
    expect(h.loads).toEqual([]); // nothing leaves before the flush
    h.flush();
    expect(await Promise.all(reads)).toEqual(['X', 'Y', null, 'BX']);
    expect(h.loads).toEqual([
      { scope: 'a', keys: ['x', 'y', 'missing'] },
      { scope: 'b', keys: ['x'] },
    ]);
  });

  it('reads a key asked twice in one batch once and answers both', async () => {
    const h = harness();
    const reads = [h.batcher.get('a', 'a', 'x'), h.batcher.get('a', 'a', 'x')];
    h.flush();
    expect(await Promise.all(reads)).toEqual(['X', 'X']);
    expect(h.loads).toEqual([{ scope: 'a', keys: ['x'] }]);
  });

  it('starts a new batch after a flush (a read never waits for a later iteration’s reads)', async () => {
    const h = harness();
    const first = h.batcher.get('a', 'a', 'x');
    h.flush();
    const second = h.batcher.get('a', 'a', 'y');
    expect(h.flushes).toHaveLength(1);
    h.flush();
    expect([await first, await second]).toEqual(['X', 'Y']);
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['y']]);
  });

  it('splits a batch larger than maxKeys into several loads', async () => {
    const h = harness({ maxKeys: 2 });
    const reads = ['x', 'y', 'k1', 'k2', 'k3'].map((k) => h.batcher.get('a', 'a', k));
    h.flush();
    expect(await Promise.all(reads)).toEqual(['X', 'Y', null, null, null]);
    expect(h.loads.map((l) => l.keys)).toEqual([['x', 'y'], ['k1', 'k2'], ['k3']]);
  });

  it('rejects every read of a failed load, and only those', async () => {
    const boom = new Error('database down');
    const h = harness({ maxKeys: 1, fail: (keys) => (keys[0] === 'x' ? boom : undefined) });
    const x1 = h.batcher.get('a', 'a', 'x');
    const x2 = h.batcher.get('a', 'a', 'x');
    const y = h.batcher.get('a', 'a', 'y');
    h.flush();
    await expect(x1).rejects.toBe(boom);
    await expect(x2).rejects.toBe(boom);
    expect(await y).toBe('Y');
  });

  it('rejects the reads when load throws synchronously', async () => {
    const boom = new Error('bad');
    const flushes: Array<() => void> = [];
    const b = new ReadBatcher<string, string>({
      load: () => {
        throw boom;
      },
      schedule: (f) => flushes.push(f),
      aloneBelow: 0,
    });
    const r = b.get('a', 'a', 'x');
    flushes[0]!();
    await expect(r).rejects.toBe(boom);
  });

  it('flushes on setImmediate by default', async () => {
    const loads: string[][] = [];
    const b = new ReadBatcher<string, number>({ load: async (_s, keys) => (loads.push(keys), keys.map((k) => k.length)), aloneBelow: 0 });
    expect(await Promise.all([b.get('s', 's', 'ab'), b.get('s', 's', 'abc')])).toEqual([2, 3]);
    expect(loads).toEqual([['ab', 'abc']]);
  });

  it('refuses a batch size below one', () => {
    expect(() => new ReadBatcher({ load: async () => [], maxKeys: 0 })).toThrow(/at least one key/);
  });
  it('sends reads alone while fewer than aloneBelow statements are in flight, and batches only the reads beyond that', async () => {
    const flushes: Array<() => void> = [];
    const loads: Array<{ keys: string[]; answer: () => void }> = [];
    const batcher = new ReadBatcher<string, string>({
      load: (_scope, keys) => new Promise((resolve) => loads.push({ keys, answer: () => resolve(keys.map((k) => k.toUpperCase())) })),
      schedule: (f) => flushes.push(f),
      aloneBelow: 2,
    });
    // Two reads leave at once, each as its own statement, without waiting for a flush.
    const a = batcher.get('s', 's', 'a');
    const b = batcher.get('s', 's', 'b');
    expect(loads.map((l) => l.keys)).toEqual([['a'], ['b']]);
    expect(flushes).toHaveLength(0);
    expect(batcher.statementsInFlight).toBe(2);
    // Two statements in flight: the next reads wait for the iteration's batch and share one.
    const c = batcher.get('s', 's', 'c');
    const d = batcher.get('s', 's', 'd');
    expect(loads).toHaveLength(2);
    expect(flushes).toHaveLength(1);
    flushes.splice(0)[0]!();
    expect(loads.map((l) => l.keys)).toEqual([['a'], ['b'], ['c', 'd']]);
    for (const l of loads) l.answer();
    expect(await Promise.all([a, b, c, d])).toEqual(['A', 'B', 'C', 'D']);
    // Every statement answered: a read goes alone again.
    expect(batcher.statementsInFlight).toBe(0);
    const e = batcher.get('s', 's', 'e');
    expect(loads.at(-1)!.keys).toEqual(['e']);
    loads.at(-1)!.answer();
    expect(await e).toBe('E');
  });

  it('counts a failed statement as answered, so a failure never leaves the batcher batching for good', async () => {
    const batcher = new ReadBatcher<string, string>({ load: () => Promise.reject(new Error('down')), schedule: () => {}, aloneBelow: 1 });
    await expect(batcher.get('s', 's', 'a')).rejects.toThrow('down');
    expect(batcher.statementsInFlight).toBe(0);
    await expect(batcher.get('s', 's', 'b')).rejects.toThrow('down');
  });
});
