import { describe, expect, it } from 'vitest';
import { MemoryDriver, StateStoreError, STATE_OWNER, type ChangeRecord, type Scope } from '@orrery/statestore';
import { ChangeFeedHub, type FeedSink } from './change-feed-hub.ts';

const S: Scope = { namespace: 'default', owner: STATE_OWNER, keyspace: 'feed' };
const tick = () => new Promise((r) => setTimeout(r, 5));

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await tick();
  }
}

/** A sink that records what it gets; `accept` decides whether it takes more (backpressure). */
function recorder(accept: () => boolean = () => true) {
  const got: ChangeRecord[] = [];
  const errors: unknown[] = [];
  let interrupted = false;
  const sink: FeedSink = {
    deliver(changes) {
      got.push(...changes);
      return accept();
    },
    fail: (err) => errors.push(err),
    interrupt: () => {
      interrupted = true;
    },
  };
  return { sink, got, errors, interrupted: () => interrupted };
}

/** The memory driver, counting the feed reads made through it. */
function countingDriver() {
  const driver = new MemoryDriver();
  let reads = 0;
  const changes = driver.changes.bind(driver);
  driver.changes = (scope, opts) => {
    reads++;
    return changes(scope, opts);
  };
  return { driver, reads: () => reads };
}

describe('ChangeFeedHub', () => {
  it('500 streams of one keyspace share one reader: a write reaches each once, for a handful of driver reads', async () => {
    const { driver, reads } = countingDriver();
    const hub = new ChangeFeedHub(driver, { pollMs: 60_000 });
    const sinks = Array.from({ length: 500 }, () => recorder());
    const streams = sinks.map((r) => hub.subscribe(S, { since: 0 }, r.sink));
    expect(hub.streams(S)).toBe(500);
    await until(() => streams.every((s) => s.cursor === 0) && reads() > 0);
    await tick();
    const before = reads();
    const { version } = await driver.set(S, 'a', '1');
    await until(() => sinks.every((r) => r.got.length === 1));
    for (const r of sinks) expect(r.got).toEqual([{ seq: 1, key: 'a', op: 'set', version, value: '1', at: expect.any(Number) }]);
    expect(reads() - before).toBeLessThanOrEqual(2);
    await driver.set(S, 'b', '1');
    await until(() => sinks.every((r) => r.got.length === 2));
    for (const s of streams) s.close();
    expect(hub.streams(S)).toBe(0);
  });

  it('a stream resuming from the past catches up from the driver while writes go on, then follows, in order, each once', async () => {
    const driver = new MemoryDriver();
    const hub = new ChangeFeedHub(driver, { pollMs: 60_000, pageSize: 7, ringEvents: 16 });
    for (let i = 0; i < 50; i++) await driver.set(S, `k${i % 10}`, String(i));
    const live = recorder();
    hub.subscribe(S, { since: 50 }, live.sink);
    const late = recorder();
    hub.subscribe(S, { since: 3 }, late.sink);
    for (let i = 50; i < 120; i++) {
      await driver.set(S, `k${i % 10}`, String(i));
      if (i % 10 === 0) await tick();
    }
    await until(() => late.got.length === 117 && live.got.length === 70);
    expect(late.got.map((c) => c.seq)).toEqual(Array.from({ length: 117 }, (_, i) => i + 4));
    expect(live.got.map((c) => c.seq)).toEqual(Array.from({ length: 70 }, (_, i) => i + 51));
    hub.closeAll();
  });

  it('filters by prefix, and the cursor moves past what the prefix skipped', async () => {
    const driver = new MemoryDriver();
    const hub = new ChangeFeedHub(driver, { pollMs: 60_000 });
    const r = recorder();
    const s = hub.subscribe(S, { since: 0, prefix: 'a/' }, r.sink);
    for (const k of ['a/1', 'b/1', 'a/2', 'b/2']) await driver.set(S, k, '1');
    await until(() => s.cursor === 4);
    expect(r.got.map((c) => [c.seq, c.key])).toEqual([
      [1, 'a/1'],
      [3, 'a/2'],
    ]);
    s.close();
  });

  it('a stream that stops taking (backpressure) does not hold the others up and later catches up from the driver', async () => {
    const driver = new MemoryDriver();
    const hub = new ChangeFeedHub(driver, { pollMs: 60_000, pageSize: 5, ringEvents: 4 });
    let open = false;
    const slow = recorder(() => open);
    const fast = recorder();
    const s = hub.subscribe(S, { since: 0 }, slow.sink);
    hub.subscribe(S, { since: 0 }, fast.sink);
    for (let i = 0; i < 30; i++) {
      await driver.set(S, `k${i}`, String(i));
      await tick();
    }
    await until(() => fast.got.length === 30);
    expect(slow.got.length).toBeLessThan(30);
    open = true;
    s.resume();
    await until(() => slow.got.length === 30);
    expect(slow.got.map((c) => c.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    hub.closeAll();
  });

  it('a stream left behind the retained window fails with changes_expired', async () => {
    const driver = new MemoryDriver();
    const hub = new ChangeFeedHub(driver, { pollMs: 60_000, pageSize: 2, ringEvents: 2 });
    let open = true;
    const r = recorder(() => open);
    hub.subscribe(S, { since: 0 }, r.sink);
    await driver.set(S, 'a', '1');
    await until(() => r.got.length === 1);
    open = false;
    for (let i = 0; i < 10; i++) await driver.set(S, `k${i}`, '1');
    await tick();
    await driver.pruneChanges({ maxAgeMs: 0, maxEvents: 3 });
    const s2 = recorder();
    const behind = hub.subscribe(S, { since: 1 }, s2.sink);
    await until(() => s2.errors.length === 1);
    expect(s2.errors[0]).toBeInstanceOf(StateStoreError);
    expect(s2.errors[0]).toMatchObject({ code: 'changes_expired' });
    expect(s2.got).toEqual([]);
    expect(behind.cursor).toBe(1);
    expect(hub.streams(S)).toBe(1);
    hub.closeAll();
  });

  it('closeAll interrupts every stream and stops watching the driver', async () => {
    const driver = new MemoryDriver();
    let watching = 0;
    const watch = driver.watchChanges.bind(driver);
    driver.watchChanges = (scope, wake) => {
      watching++;
      const stop = watch(scope, wake);
      return () => {
        watching--;
        stop();
      };
    };
    const hub = new ChangeFeedHub(driver, { pollMs: 60_000 });
    const a = recorder();
    const b = recorder();
    hub.subscribe(S, { since: 0 }, a.sink);
    hub.subscribe({ ...S, keyspace: 'other' }, { since: 0 }, b.sink);
    expect(watching).toBe(2);
    hub.closeAll();
    expect([a.interrupted(), b.interrupted()]).toEqual([true, true]);
    expect(watching).toBe(0);
    expect(hub.total).toBe(0);
    await driver.set(S, 'x', '1');
    await tick();
    expect(a.got).toEqual([]);
  });

  it('without a wake-up (a lost NOTIFY) the poll still delivers', async () => {
    const driver = new MemoryDriver();
    driver.watchChanges = () => () => {}; // deaf
    const hub = new ChangeFeedHub(driver, { pollMs: 30 });
    const r = recorder();
    hub.subscribe(S, { since: 0 }, r.sink);
    await tick();
    await driver.set(S, 'a', '1');
    await until(() => r.got.length === 1, 2000);
    hub.closeAll();
  });
});
