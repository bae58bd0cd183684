import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryDriver } from './memory-driver.ts';
import { memoryJournalFixture } from './memory-journal-fixture.ts';
import { JOURNAL_MAGIC } from './memory-journal.ts';
import { STATE_OWNER, type Scope, type StateDriver } from './types.ts';

// The memory driver's change feed across restarts: the journal keeps the numbering and the window.

const S: Scope = { namespace: 'default', owner: STATE_OWNER, keyspace: 'cart' };
const T: Scope = { namespace: 'default', owner: STATE_OWNER, keyspace: 'other' };

/** The retained feed without the time (changes replayed from the journal are dated at the replay). */
async function feedOf(d: StateDriver, s: Scope) {
  const { low, head } = await d.changeWindow(s);
  const page = await d.changes(s, { since: low, limit: 100_000 });
  return { low, head, changes: page.changes.map(({ at: _at, ...c }) => c) };
}

describe('memory driver change feed with a journal', () => {
  const journal = memoryJournalFixture('orrery-memfeed-');
  const { clock, reopen } = journal;

  it('keeps every change, its number and value across a restart; numbering continues', async () => {
    const a = reopen();
    const v1 = (await a.set(S, 'a', '{"n":1}')).version;
    const v2 = (await a.set(S, 'b', '"x"')).version;
    await a.delete(S, 'a');
    await a.set(T, 'a', '1');
    const before = await feedOf(a, S);
    expect(before.changes).toEqual([
      { seq: 1, key: 'a', op: 'set', version: v1, value: '{"n":1}' },
      { seq: 2, key: 'b', op: 'set', version: v2, value: '"x"' },
      { seq: 3, key: 'a', op: 'delete', version: v1 },
    ]);
    const b = reopen(); // replays the journal lines, then compacts them into `feed` + `chg` lines
    expect(await feedOf(b, S)).toEqual(before);
    expect((await feedOf(b, T)).head).toBe(1);
    const c = reopen(); // replays the compacted snapshot
    expect(await feedOf(c, S)).toEqual(before);
    await c.set(S, 'c', '1');
    expect((await c.changes(S, { since: 3 })).changes.map((x) => [x.seq, x.key])).toEqual([[4, 'c']]);
  });

  it('keeps the retained window (the prune is journaled), with and without a compaction in between', async () => {
    const a = reopen();
    for (let i = 0; i < 6; i++) await a.set(S, `k${i}`, String(i));
    await a.pruneChanges({ maxAgeMs: 0, maxEvents: 2 });
    expect(readFileSync(journal.path, 'utf8')).toContain('{"t":"low","ns":"default","ks":"cart","low":4}');
    const b = reopen();
    expect(await b.changeWindow(S)).toEqual({ low: 4, head: 6 });
    expect((await b.changes(S, { since: 3 })).expired).toBe(true);
    await b.pruneChanges({ maxAgeMs: 0, maxEvents: 1 });
    const c = reopen();
    expect(await feedOf(c, S)).toEqual({ low: 5, head: 6, changes: [{ seq: 6, key: 'k5', op: 'set', version: expect.any(Number), value: '5' }] });
  });

  it('a key that expired while statesvc was down gets its expire change at the next start, once', async () => {
    const a = reopen();
    const v = (await a.set(S, 'ttl', '1', { ttlMs: 1000 })).version;
    await a.set(S, 'keep', '1');
    await a.close();
    clock.now += 1000;
    const b = reopen();
    expect((await feedOf(b, S)).changes.slice(2)).toEqual([{ seq: 3, key: 'ttl', op: 'expire', version: v }]);
    const c = reopen();
    expect(await feedOf(c, S)).toEqual(await feedOf(b, S));
  });

  it('a compaction while running first sweeps expired rows, so their expire changes are not lost to a restart', async () => {
    const a = reopen();
    const v = (await a.set(S, 'ttl', '1', { ttlMs: 10 }));
    clock.now += 10;
    a.compactJournal();
    expect((await feedOf(a, S)).changes.map((c) => [c.seq, c.op, c.key])).toEqual([
      [1, 'set', 'ttl'],
      [2, 'expire', 'ttl'],
    ]);
    const b = reopen();
    expect((await feedOf(b, S)).changes[1]).toEqual({ seq: 2, key: 'ttl', op: 'expire', version: v.version });
    expect(await b.metaCount(S)).toBe(0);
  });

  it('replays a keyspace deletion with its changes', async () => {
    const a = reopen();
    await a.set(S, 'b', '1');
    await a.set(S, 'a', '1');
    await a.deleteKeyspace(S);
    const before = await feedOf(a, S);
    // The history before the deletion (its sets hold the values) is pruned with it.
    expect(before.low).toBe(2);
    expect(before.changes.map((c) => [c.seq, c.op, c.key])).toEqual([
      [3, 'delete', 'a'],
      [4, 'delete', 'b'],
    ]);
    const b = reopen();
    expect(await feedOf(b, S)).toEqual(before);
    expect(await b.metaCount(S)).toBe(0);
  });

  it('a journal written before the change feed opens with an empty feed; new changes start at 1', async () => {
    writeFileSync(
      journal.path,
      `{"t":"hdr","magic":"${JOURNAL_MAGIC}","next":3}\n` +
        '{"t":"set","ns":"default","ks":"cart","k":"a","ver":1,"exp":null,"v":"1"}\n' +
        '{"t":"set","ns":"default","ks":"cart","k":"b","ver":2,"exp":null,"v":"2"}\n' +
        '{"t":"del","ns":"default","ks":"cart","k":"b"}\n',
    );
    const a = reopen();
    expect(await a.changeWindow(S)).toEqual({ low: 0, head: 0 });
    expect((await a.get(S, 'a'))?.value).toBe('1');
    await a.set(S, 'c', '1');
    expect((await a.changes(S, { since: 0 })).changes.map((c) => [c.seq, c.key])).toEqual([[1, 'c']]);
  });

  it('refuses a damaged feed record, naming the line', () => {
    writeFileSync(journal.path, `{"t":"hdr","magic":"${JOURNAL_MAGIC}","next":3}\n{"t":"chg","ns":"default","ks":"cart","seq":1,"k":"a","op":"set","ver":1,"at":1}\n`);
    expect(() => reopen()).toThrow(/line 2 .*chg record carries v exactly when op is set/);
    writeFileSync(journal.path, `{"t":"hdr","magic":"${JOURNAL_MAGIC}","next":3}\n{"t":"feed","ns":"default","ks":"cart","head":1,"low":2}\n`);
    expect(() => reopen()).toThrow(/line 2 .*0 <= low <= head/);
  });

  it('a property: after any operations and restarts, the feed is gap-free, kept across the restart, and replays to the data', { timeout: 60_000 }, async () => {
    const key = fc.constantFrom('a', 'b', 'c', 'é/1');
    const scope = fc.constantFrom(S, T);
    const op = fc.oneof(
      { weight: 4, arbitrary: fc.record({ t: fc.constant('set' as const), s: scope, k: key, v: fc.string({ maxLength: 6 }), ttl: fc.constantFrom(0, 0, 5, 50) }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('counted' as const), s: scope, k: key, max: fc.integer({ min: 1, max: 3 }) }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant('del' as const), s: scope, k: key }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('dks' as const), s: scope }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 30 }) }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('sweep' as const) }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('compact' as const) }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('reopen' as const) }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 50 }), async (ops) => {
        rmSync(journal.path, { force: true });
        clock.now = 1_000_000;
        let d = new MemoryDriver({ now: () => clock.now, journal: { path: journal.path, fsyncIntervalMs: 0 } });
        try {
          for (const o of ops) {
            try {
              if (o.t === 'set') await d.set(o.s, o.k, JSON.stringify(o.v), { ttlMs: o.ttl });
              else if (o.t === 'counted') await d.setCounted(o.s, o.k, '1', {}, { maxKeys: o.max });
              else if (o.t === 'del') await d.delete(o.s, o.k);
              else if (o.t === 'dks') await d.deleteKeyspace(o.s);
              else if (o.t === 'tick') clock.now += o.ms;
              else if (o.t === 'sweep') await d.sweepExpired();
              else if (o.t === 'compact') d.compactJournal();
              else {
                const before = { S: await feedOf(d, S), T: await feedOf(d, T) };
                await d.close();
                d = new MemoryDriver({ now: () => clock.now, journal: { path: journal.path, fsyncIntervalMs: 0 } });
                // What was there is still there, numbers included; a start only adds expire changes.
                for (const [name, s] of [['S', S], ['T', T]] as const) {
                  const after = await feedOf(d, s);
                  expect(after.changes.slice(0, before[name].changes.length)).toEqual(before[name].changes);
                  expect(after.changes.slice(before[name].changes.length).every((c) => c.op === 'expire')).toBe(true);
                }
              }
            } catch (err) {
              if ((err as { code?: string }).code !== 'quota_keys') throw err;
            }
          }
          for (const s of [S, T]) {
            const { low, head, changes } = await feedOf(d, s);
            // Only a keyspace deletion prunes here (its history before it), never a hole.
            expect(changes.map((c) => c.seq)).toEqual(Array.from({ length: head - low }, (_, i) => low + i + 1));
            // The feed replayed from its window's start is the keyspace: the window starts empty or
            // at a deletion (expired-but-unswept rows are absent from both).
            await d.sweepExpired();
            const all = (await d.changes(s, { since: low, limit: 100_000 })).changes;
            const mirror = new Map<string, string>();
            for (const c of all) {
              if (c.op === 'set') mirror.set(c.key, c.value!);
              else mirror.delete(c.key);
            }
            const keys = (await d.list(s, { limit: 1000 })).keys;
            expect([...mirror.keys()].sort()).toEqual([...keys].sort());
            for (const k of keys) expect(mirror.get(k)).toBe((await d.get(s, k))!.value);
          }
        } finally {
          await d.close();
        }
      }),
      { numRuns: 120 },
    );
  });
});
