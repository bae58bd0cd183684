/**
 * The keyspace change feed (docs/state.md "Change feed"): the part of the conformance suite
 * every driver passes, registered by describeConformance. The clock is the harness's, so TTL
 * expiry and age-based retention run without sleeping.
 */
import { expect, it } from 'vitest';
import { STATE_OWNER, type ChangeRecord, type Scope, type StateDriver } from './types.ts';

interface Clocked {
  driver: StateDriver;
  clock: { now: number };
}

let seq = 0;
const scope = (namespace = 'feed'): Scope => ({ namespace, owner: STATE_OWNER, keyspace: `feed-${process.pid}-${++seq}` });

/** The changes after `since` as compact tuples (seq, op, key, version, value). */
async function all(driver: StateDriver, s: Scope, since = 0, prefix?: string): Promise<Array<[number, string, string, number, string | undefined]>> {
  const out: Array<[number, string, string, number, string | undefined]> = [];
  for (let cursor = since; ; ) {
    const page = await driver.changes(s, { since: cursor, prefix, limit: 7 });
    expect(page.expired).toBe(false);
    for (const c of page.changes) out.push([c.seq, c.op, c.key, c.version, c.value]);
    if (page.next >= page.head) return out;
    cursor = page.next;
  }
}

/** A mirror of the keyspace built from its changes alone. */
function replay(changes: ChangeRecord[]): Map<string, { value: string; version: number }> {
  const m = new Map<string, { value: string; version: number }>();
  for (const c of changes) {
    if (c.op === 'set') m.set(c.key, { value: c.value!, version: c.version });
    else m.delete(c.key);
  }
  return m;
}

async function readAll(driver: StateDriver, s: Scope): Promise<ChangeRecord[]> {
  const out: ChangeRecord[] = [];
  for (let cursor = 0; ; ) {
    const page = await driver.changes(s, { since: cursor, limit: 50 });
    out.push(...page.changes);
    if (page.next >= page.head) return out;
    cursor = page.next;
  }
}

export function changeFeedContract(harness: () => Clocked): void {
  it('change feed: every write is one change, numbered 1, 2, 3… in commit order, with its version and value', async () => {
    const { driver } = harness();
    const s = scope();
    expect(await driver.changeWindow(s)).toEqual({ low: 0, head: 0 });
    expect(await driver.changes(s, { since: 0 })).toEqual({ low: 0, head: 0, expired: false, changes: [], next: 0 });
    const a1 = await driver.set(s, 'a', '{"n":1}');
    const b1 = await driver.set(s, 'b', '"x"', { ttlMs: 60_000 });
    const a2 = await driver.set(s, 'a', '{"n":2}', { ifVersion: a1.version });
    await expect(driver.set(s, 'a', '3', { ifVersion: a1.version })).rejects.toMatchObject({ code: 'version_conflict' });
    expect(await driver.delete(s, 'b')).toBe(true);
    expect(await driver.delete(s, 'b')).toBe(false); // nothing to remove: no change
    const c1 = await driver.set(s, 'c', 'null', { ifVersion: 0 });
    expect(await all(driver, s)).toEqual([
      [1, 'set', 'a', a1.version, '{"n":1}'],
      [2, 'set', 'b', b1.version, '"x"'],
      [3, 'set', 'a', a2.version, '{"n":2}'],
      [4, 'delete', 'b', b1.version, undefined],
      [5, 'set', 'c', c1.version, 'null'],
    ]);
    expect(await driver.changeWindow(s)).toEqual({ low: 0, head: 5 });
    // Another keyspace has its own numbering.
    const other = scope();
    await driver.set(other, 'a', '1');
    expect(await all(driver, other)).toEqual([[1, 'set', 'a', expect.any(Number), '1']]);
    expect((await driver.changeWindow(s)).head).toBe(5);
  });

  it('change feed: resumes exactly after since, pages with a limit, filters by prefix', async () => {
    const { driver } = harness();
    const s = scope();
    for (const k of ['a/1', 'b/1', 'a/2', 'a', 'b/2', 'a/3']) await driver.set(s, k, '0');
    expect((await all(driver, s, 3)).map((c) => c[0])).toEqual([4, 5, 6]);
    expect(await all(driver, s, 6)).toEqual([]);
    const page = await driver.changes(s, { since: 0, limit: 2 });
    expect(page.changes.map((c) => c.seq)).toEqual([1, 2]);
    expect(page.next).toBe(2);
    expect((await all(driver, s, 0, 'a/')).map((c) => [c[0], c[2]])).toEqual([[1, 'a/1'], [3, 'a/2'], [6, 'a/3']]);
    // A full page of matches resumes after its last match; a partial one after everything read.
    const p1 = await driver.changes(s, { since: 0, prefix: 'b/', limit: 1 });
    expect(p1.changes.map((c) => c.seq)).toEqual([2]);
    expect(p1.next).toBe(2);
    const p2 = await driver.changes(s, { since: p1.next, prefix: 'b/', limit: 1 });
    expect(p2.changes.map((c) => c.seq)).toEqual([5]);
    const p3 = await driver.changes(s, { since: p2.next, prefix: 'b/', limit: 1 });
    expect(p3).toMatchObject({ changes: [], next: 6, head: 6 });
    expect((await driver.changes(s, { since: 0, prefix: 'zzz' })).next).toBe(6);
  });

  it('change feed: TTL expiry is an expire change, recorded when the expired row is removed', async () => {
    const { driver, clock } = harness();
    const s = scope();
    const t1 = await driver.set(s, 't1', '1', { ttlMs: 100 });
    const t2 = await driver.set(s, 't2', '2', { ttlMs: 100 });
    const t3 = await driver.set(s, 't3', '3', { ttlMs: 100 });
    clock.now += 100;
    // A read does not remove it: no change yet.
    expect(await driver.get(s, 't1')).toBeNull();
    expect((await driver.changeWindow(s)).head).toBe(3);
    // A write over an expired row: expire, then set.
    const t2b = await driver.set(s, 't2', '22');
    // A delete of an expired row removes it: expire (and reports no live key).
    expect(await driver.delete(s, 't3')).toBe(false);
    // The sweeper: the rest.
    expect(await driver.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect(await all(driver, s, 3)).toEqual([
      [4, 'expire', 't2', t2.version, undefined],
      [5, 'set', 't2', t2b.version, '22'],
      [6, 'expire', 't3', t3.version, undefined],
      [7, 'expire', 't1', t1.version, undefined],
    ]);
    await driver.sweepExpired(); // nothing left to expire here: no new change
    expect((await driver.changeWindow(s)).head).toBe(7);
  });

  it('change feed: a create that purges expired keys under maxKeys records their expire changes first, in key order', async () => {
    const { driver, clock } = harness();
    const s = scope();
    const budget = { maxKeys: 3 };
    await driver.setCounted(s, 'live', '1', {}, budget);
    const y = await driver.setCounted(s, 'y', '1', { ttlMs: 10 }, budget);
    const x = await driver.setCounted(s, 'x', '1', { ttlMs: 10 }, budget);
    clock.now += 10;
    const n = await driver.setCounted(s, 'new', '1', {}, budget);
    expect((await all(driver, s, 3)).map((c) => c.slice(0, 4))).toEqual([
      [4, 'expire', 'x', x.version],
      [5, 'expire', 'y', y.version],
      [6, 'set', 'new', n.version],
    ]);
  });

  it('change feed: deleteKeyspace records a delete per live key and an expire per expired row; numbering continues', async () => {
    const { driver, clock } = harness();
    const s = scope();
    const b = await driver.set(s, 'b', '1');
    const a = await driver.set(s, 'a', '1', { ttlMs: 10 });
    const c = await driver.set(s, 'c', '1');
    clock.now += 10;
    expect(await driver.deleteKeyspace(s)).toBe(2);
    expect(await all(driver, s, 3)).toEqual([
      [4, 'expire', 'a', a.version, undefined],
      [5, 'delete', 'b', b.version, undefined],
      [6, 'delete', 'c', c.version, undefined],
    ]);
    const again = await driver.set(s, 'a', '2');
    expect(await all(driver, s, 6)).toEqual([[7, 'set', 'a', again.version, '2']]);
  });

  it('change feed: deleteKeyspace prunes the history before it (whose sets hold the values); a reader behind it is expired', async () => {
    const { driver } = harness();
    const s = scope();
    await driver.set(s, 'a', '"secret"');
    await driver.set(s, 'b', '"secret"');
    expect(await driver.deleteKeyspace(s)).toBe(2);
    expect(await driver.changeWindow(s)).toEqual({ low: 2, head: 4 });
    expect(await driver.changes(s, { since: 0 })).toMatchObject({ expired: true, changes: [] });
    expect((await all(driver, s, 2)).map((c) => `${c[1]} ${c[2]}`)).toEqual(['delete a', 'delete b']);
    // A keyspace whose keys were deleted one by one (no rows left) loses its history too.
    const t = scope();
    await driver.set(t, 'a', '"secret"');
    await driver.delete(t, 'a');
    expect(await driver.deleteKeyspace(t)).toBe(0);
    expect(await driver.changeWindow(t)).toEqual({ low: 2, head: 2 });
    expect(await driver.changes(t, { since: 0 })).toMatchObject({ expired: true, changes: [] });
    // Numbering goes on for a keyspace that comes back.
    const back = await driver.set(t, 'a', '1');
    expect(await all(driver, t, 2)).toEqual([[3, 'set', 'a', back.version, '1']]);
  });

  it('change feed: retention prunes by count and by age; since below the window is expired', async () => {
    const { driver, clock } = harness();
    const s = scope();
    for (let i = 0; i < 10; i++) await driver.set(s, `k${i}`, String(i));
    await driver.pruneChanges({ maxAgeMs: 0, maxEvents: 4 });
    expect(await driver.changeWindow(s)).toEqual({ low: 6, head: 10 });
    expect(await driver.changes(s, { since: 5 })).toMatchObject({ expired: true, changes: [], low: 6, head: 10 });
    expect((await all(driver, s, 6)).map((c) => c[0])).toEqual([7, 8, 9, 10]);
    // By age: changes recorded more than maxAgeMs ago go, newer ones stay.
    clock.now += 5_000;
    await driver.set(s, 'late', '1');
    await driver.pruneChanges({ maxAgeMs: 1_000, maxEvents: 0 });
    expect(await driver.changeWindow(s)).toEqual({ low: 10, head: 11 });
    expect((await all(driver, s, 10)).map((c) => c[2])).toEqual(['late']);
    // Both bounds off: nothing is pruned.
    await driver.pruneChanges({ maxAgeMs: 0, maxEvents: 0 });
    expect((await driver.changeWindow(s)).low).toBe(10);
    // Everything pruned: the window is empty, resuming at the head is fine.
    clock.now += 5_000;
    await driver.pruneChanges({ maxAgeMs: 1_000, maxEvents: 0 });
    expect(await driver.changes(s, { since: 11 })).toMatchObject({ expired: false, changes: [], low: 11, head: 11, next: 11 });
    expect((await driver.changes(s, { since: 10 })).expired).toBe(true);
  });

  it('change feed: watchChanges wakes a watcher after a commit, and no longer after unsubscribing', async () => {
    const { driver } = harness();
    const s = scope();
    let wakes = 0;
    let woke: () => void = () => {};
    const unsubscribe = driver.watchChanges(s, () => {
      wakes++;
      woke();
    });
    const first = new Promise<void>((r) => (woke = r));
    await driver.set(s, 'a', '1');
    await first;
    expect(wakes).toBeGreaterThanOrEqual(1);
    // A watcher of another keyspace is not woken.
    let otherWakes = 0;
    const other = driver.watchChanges(scope(), () => otherWakes++);
    unsubscribe();
    const before = wakes;
    await driver.set(s, 'a', '2');
    await new Promise((r) => setTimeout(r, 50));
    expect(wakes).toBe(before);
    expect(otherWakes).toBe(0);
    other();
  });

  it('change feed: an idempotent write records its change once; its replay records none', async () => {
    const { driver } = harness();
    const s = scope();
    const claim = (key: string) => ({ key, requestHash: `hash-${key}`, retentionMs: 60_000 });
    const first = await driver.setIdempotent(s, 'a', '1', {}, { maxKeys: 100 }, claim('put'));
    expect((await driver.setIdempotent(s, 'a', '1', {}, { maxKeys: 100 }, claim('put'))).replayed).toBe(true);
    expect((await driver.deleteIdempotent(s, 'a', {}, claim('del'))).result).toBe('deleted');
    expect((await driver.deleteIdempotent(s, 'a', {}, claim('del'))).replayed).toBe(true);
    expect(await all(driver, s)).toEqual([
      [1, 'set', 'a', first.version!, '1'],
      [2, 'delete', 'a', first.version!, undefined],
    ]);
  });

  it('change feed: concurrent writers and a concurrent reader: no hole, every write once, the replay equals the keyspace', async () => {
    const { driver } = harness();
    const s = scope();
    const acked: Array<{ key: string; version: number }> = [];
    let deletes = 0;
    let writing = true;
    const seen: ChangeRecord[] = [];
    const reader = (async () => {
      let since = 0;
      while (writing || since < (await driver.changeWindow(s)).head) {
        const page = await driver.changes(s, { since, limit: 13 });
        // Whatever instant the read saw, its changes follow `since` with no hole.
        page.changes.forEach((c, i) => expect(c.seq).toBe(since + i + 1));
        seen.push(...page.changes);
        since = page.next;
        if (page.changes.length === 0) await new Promise((r) => setTimeout(r, 2));
      }
    })();
    await Promise.all(
      Array.from({ length: 12 }, async (_, w) => {
        for (let i = 0; i < 15; i++) {
          const key = `k${(w * 7 + i) % 9}`;
          if (i % 5 === 4) {
            if (await driver.delete(s, key)) deletes++;
          } else {
            acked.push({ key, version: (await driver.set(s, key, JSON.stringify({ w, i }))).version });
          }
        }
      }),
    );
    writing = false;
    await reader;
    expect(seen.map((c) => c.seq)).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    expect(seen.filter((c) => c.op === 'set').map((c) => c.version).sort((a, b) => a - b)).toEqual(acked.map((a) => a.version).sort((a, b) => a - b));
    expect(seen.filter((c) => c.op === 'delete')).toHaveLength(deletes);
    expect(seen).toEqual(await readAll(driver, s));
    const mirror = replay(seen);
    const keys = (await driver.list(s, { limit: 1000 })).keys;
    expect([...mirror.keys()].sort()).toEqual([...keys].sort());
    for (const k of keys) expect(mirror.get(k)).toEqual({ value: (await driver.get(s, k))!.value, version: (await driver.get(s, k))!.version });
  });
}
