import { describe, expect, it } from 'vitest';
import { DEFAULT_WRITE_BATCHES_IN_FLIGHT, WriteBatcher } from './write-batcher.ts';

/** A batcher whose flushes run when the test says so; `load` answers `<key>=<write>` per write. */
function harness(opts: { maxWrites?: number; short?: boolean; fail?: Error } = {}) {
  const flushes: Array<() => void> = [];
  const loads: Array<{ scope: string; keys: string[] }> = [];
  const batcher = new WriteBatcher<string, string, string>({
    load: async (scope, writes) => {
      loads.push({ scope, keys: writes.map((w) => w.key) });
      if (opts.fail) throw opts.fail;
      const out = writes.map((w) => `${w.key}=${w.write}`);
      return opts.short ? out.slice(1) : out;
    },
    schedule: (f) => flushes.push(f),
    maxWrites: opts.maxWrites,
  });
  const flush = () => {
    for (const f of flushes.splice(0)) f();
  };
  return { batcher, loads, flushes, flush };
}

describe('WriteBatcher', () => {
  it('sends the writes of one iteration as one load per scope, answering each write with its own result', async () => {
    const h = harness();
    const w = [h.batcher.submit('a', 'a', 'x', '1'), h.batcher.submit('a', 'a', 'y', '2'), h.batcher.submit('b', 'b', 'x', '3')];
    expect(h.flushes).toHaveLength(1);
    expect(h.loads).toEqual([]);
    h.flush();
    expect(await Promise.all(w)).toEqual(['x=1', 'y=2', 'x=3']);
    expect(h.loads).toEqual([
      { scope: 'a', keys: ['x', 'y'] },
      { scope: 'b', keys: ['x'] },
    ]);
  });

  it('puts a second write of the same key into the next batch, sent after the first', async () => {
    const h = harness();
    const w = [h.batcher.submit('a', 'a', 'x', '1'), h.batcher.submit('a', 'a', 'y', '2'), h.batcher.submit('a', 'a', 'x', '3'), h.batcher.submit('a', 'a', 'z', '4')];
    h.flush();
    expect(await Promise.all(w)).toEqual(['x=1', 'y=2', 'x=3', 'z=4']);
    expect(h.loads.map((l) => l.keys)).toEqual([['x', 'y'], ['x', 'z']]);
  });

  it('starts new batches after a flush', async () => {
    const h = harness();
    const first = h.batcher.submit('a', 'a', 'x', '1');
    h.flush();
    const second = h.batcher.submit('a', 'a', 'x', '2');
    expect(h.flushes).toHaveLength(1);
    h.flush();
    expect([await first, await second]).toEqual(['x=1', 'x=2']);
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['x']]);
  });

  it('splits batches at maxWrites', async () => {
    const h = harness({ maxWrites: 2 });
    const w = ['p', 'q', 'r', 's', 't'].map((k) => h.batcher.submit('a', 'a', k, k));
    h.flush();
    expect(await Promise.all(w)).toEqual(['p=p', 'q=q', 'r=r', 's=s', 't=t']);
    expect(h.loads.map((l) => l.keys)).toEqual([['p', 'q'], ['r', 's'], ['t']]);
  });

  it('rejects every write of a failed load', async () => {
    const boom = new Error('database down');
    const h = harness({ fail: boom });
    const w = [h.batcher.submit('a', 'a', 'x', '1'), h.batcher.submit('a', 'a', 'y', '2')];
    h.flush();
    for (const p of w) await expect(p).rejects.toBe(boom);
  });

  it('rejects the writes a load left without a result instead of leaving them hanging', async () => {
    const h = harness({ short: true });
    const w = [h.batcher.submit('a', 'a', 'x', '1'), h.batcher.submit('a', 'a', 'y', '2')];
    h.flush();
    expect(await w[0]).toBe('y=2');
    await expect(w[1]).rejects.toThrow(/answered 1 results/);
  });

  it('rejects the writes when load throws synchronously', async () => {
    const boom = new Error('bad');
    const flushes: Array<() => void> = [];
    const b = new WriteBatcher<string, string, string>({
      load: () => {
        throw boom;
      },
      schedule: (f) => flushes.push(f),
    });
    const r = b.submit('a', 'a', 'x', '1');
    flushes[0]!();
    await expect(r).rejects.toBe(boom);
  });

  it('flushes on setImmediate by default, and refuses a batch size below one', async () => {
    const b = new WriteBatcher<string, number, number>({ load: async (_s, writes) => writes.map((w) => w.write * 2) });
    expect(await Promise.all([b.submit('s', 's', 'a', 1), b.submit('s', 's', 'b', 2)])).toEqual([2, 4]);
    expect(() => new WriteBatcher({ load: async () => [], maxWrites: 0 })).toThrow(/at least one write/);
  });
});

/** A batcher whose loads stay in flight until the test answers them (`answer(i)`, `fail(i, err)`). */
function heldHarness(opts: { maxInFlight?: number } = {}) {
  const flushes: Array<() => void> = [];
  const loads: Array<{ scope: string; keys: string[]; answer: () => void; fail: (err: Error) => void }> = [];
  const batcher = new WriteBatcher<string, string, string>({
    load: (scope, writes) =>
      new Promise<string[]>((resolve, reject) => {
        loads.push({ scope, keys: writes.map((w) => w.key), answer: () => resolve(writes.map((w) => `${w.key}=${w.write}`)), fail: reject });
      }),
    schedule: (f) => flushes.push(f),
    maxInFlight: opts.maxInFlight,
  });
  const flush = () => {
    for (const f of flushes.splice(0)) f();
  };
  /** Lets the answered load's callbacks (and the sends they make) run. */
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { batcher, loads, flush, settle };
}

describe('WriteBatcher: group commit (batches of a keyspace in flight at most)', () => {
  it('holds writes that arrive while a batch of their keyspace is in flight, and sends them as one batch when it is answered', async () => {
    const h = heldHarness({ maxInFlight: 1 });
    const first = h.batcher.submit('a', 'a', 'x', '1');
    h.flush();
    expect(h.loads.map((l) => l.keys)).toEqual([['x']]);
    // Three later iterations: nothing leaves while the first batch is in flight.
    const later = [h.batcher.submit('a', 'a', 'y', '2'), h.batcher.submit('a', 'a', 'z', '3')];
    h.flush();
    later.push(h.batcher.submit('a', 'a', 'w', '4'));
    h.flush();
    expect(h.loads).toHaveLength(1);
    expect(h.batcher.batchesInFlight('a')).toBe(1);
    h.loads[0]!.answer();
    expect(await first).toBe('x=1');
    await h.settle();
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['y', 'z', 'w']]);
    h.loads[1]!.answer();
    expect(await Promise.all(later)).toEqual(['y=2', 'z=3', 'w=4']);
    await h.settle();
    expect(h.batcher.batchesInFlight('a')).toBe(0);
  });

  it('does not hold another keyspace', async () => {
    const h = heldHarness({ maxInFlight: 1 });
    void h.batcher.submit('a', 'a', 'x', '1');
    h.flush();
    const b = h.batcher.submit('b', 'b', 'x', '2');
    h.flush();
    expect(h.loads.map((l) => l.scope)).toEqual(['a', 'b']);
    h.loads[1]!.answer();
    expect(await b).toBe('x=2');
  });

  it('sends a second write of a key held meanwhile in a later batch, after the one before it was answered', async () => {
    const h = heldHarness({ maxInFlight: 1 });
    void h.batcher.submit('a', 'a', 'x', '1');
    h.flush();
    const held = [h.batcher.submit('a', 'a', 'x', '2'), h.batcher.submit('a', 'a', 'y', '3'), h.batcher.submit('a', 'a', 'x', '4')];
    h.flush();
    h.loads[0]!.answer();
    await h.settle();
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['x', 'y']]);
    h.loads[1]!.answer();
    await h.settle();
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['x', 'y'], ['x']]);
    h.loads[2]!.answer();
    expect(await Promise.all(held)).toEqual(['x=2', 'y=3', 'x=4']);
  });

  it('a failed batch rejects its own writes only and lets the held ones go', async () => {
    const h = heldHarness({ maxInFlight: 1 });
    const first = h.batcher.submit('a', 'a', 'x', '1');
    h.flush();
    const held = h.batcher.submit('a', 'a', 'y', '2');
    h.flush();
    const boom = new Error('deadlock detected');
    h.loads[0]!.fail(boom);
    await expect(first).rejects.toBe(boom);
    await h.settle();
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['y']]);
    h.loads[1]!.answer();
    expect(await held).toBe('y=2');
  });

  it('by default two batches are in flight: a second leaves at once and a third waits; refuses fewer than one', async () => {
    const h = heldHarness();
    expect(DEFAULT_WRITE_BATCHES_IN_FLIGHT).toBe(2);
    void h.batcher.submit('a', 'a', 'x', '1');
    h.flush();
    void h.batcher.submit('a', 'a', 'y', '2');
    h.flush();
    void h.batcher.submit('a', 'a', 'z', '3');
    h.flush();
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['y']]);
    h.loads[1]!.answer();
    await h.settle();
    expect(h.loads.map((l) => l.keys)).toEqual([['x'], ['y'], ['z']]);
    expect(() => new WriteBatcher({ load: async () => [], maxInFlight: 0 })).toThrow(/at least one batch in flight/);
  });
});
