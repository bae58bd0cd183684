import { appendFileSync, closeSync, existsSync, openSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeConformance } from './conformance-suite.ts';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from './data-dir-lock.ts';
import { MemoryDriver } from './memory-driver.ts';
import { encodeSet, JournalCorruptError, MEMORY_JOURNAL_FILE, replayJournal } from './memory-journal.ts';
import { openDriver } from './open-driver.ts';
import { STATE_OWNER, type Scope, type StateDriver } from './types.ts';

const roots: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'orrery-memjournal-'));
  roots.push(d);
  return d;
};
afterAll(() => {
  for (const d of roots) rmSync(d, { recursive: true, force: true });
});

const S: Scope = { namespace: 'default', owner: STATE_OWNER, keyspace: 'cart' };
const T: Scope = { namespace: 'default', owner: STATE_OWNER, keyspace: 'other' };

/** Every live row the driver answers for, through the public API only. */
async function dump(d: StateDriver): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const namespace of await d.namespaces()) {
    for (const { keyspace } of (await d.namespaceUsage(namespace)).keyspaces) {
      const scope = { namespace, owner: STATE_OWNER, keyspace };
      let cursor = '';
      do {
        const page = await d.list(scope, { cursor, limit: 1000 });
        for (const k of page.keys) out[`${namespace}/${keyspace}/${k}`] = await d.get(scope, k);
        cursor = page.cursor;
      } while (cursor);
    }
  }
  return out;
}

describeConformance('memory (journaled)', async () => {
  const clock = { now: 1_700_000_000_000 };
  const dir = tmp();
  const driver = new MemoryDriver({ now: () => clock.now, journal: { path: join(dir, MEMORY_JOURNAL_FILE) } });
  return {
    driver,
    clock,
    cleanup: async () => {
      // Everything the suite left behind comes back identical from the journal.
      const before = await dump(driver);
      await driver.close();
      const again = new MemoryDriver({ now: () => clock.now, journal: { path: join(dir, MEMORY_JOURNAL_FILE) } });
      expect(await dump(again)).toEqual(before);
      await again.close();
    },
  };
});

describe('memory driver journal', () => {
  let dir: string;
  let path: string;
  const clock = { now: 1_700_000_000_000 };
  const open: MemoryDriver[] = [];
  const reopen = (extra: { compactMinBytes?: number } = {}) => {
    const d = new MemoryDriver({ now: () => clock.now, journal: { path, fsyncIntervalMs: 0, ...extra } });
    open.push(d);
    return d;
  };
  beforeEach(() => {
    dir = tmp();
    path = join(dir, MEMORY_JOURNAL_FILE);
    clock.now = 1_700_000_000_000;
  });
  afterEach(async () => {
    for (const d of open.splice(0)) await d.close();
  });

  it('replays sets, overwrites and deletes with their versions', async () => {
    const a = reopen();
    const v1 = (await a.set(S, 'k1', '{"n":1}')).version;
    const v2 = (await a.set(S, 'k1', '{"n":2}')).version;
    const v3 = (await a.set(S, 'k2', '"é"')).version;
    await a.set(S, 'gone', '1');
    expect(await a.delete(S, 'gone')).toBe(true);
    await a.set(T, 'x', 'true', { ifVersion: 0 });
    const before = await dump(a);
    // No close(): as after kill -9, only what was written counts.
    const b = reopen();
    expect(await dump(b)).toEqual(before);
    expect(await b.get(S, 'k1')).toEqual({ value: '{"n":2}', version: v2, expiresAt: null });
    expect((await b.get(S, 'k2'))?.version).toBe(v3);
    expect(await b.get(S, 'gone')).toBeNull();
    expect(v2).toBeGreaterThan(v1);
    expect(await b.usage(S)).toEqual({ keys: 2, bytes: 11 }); // 7 + 4 UTF-8 bytes
    expect((await b.namespaceUsage('default')).bytes).toBe(15);
  });

  it('ignores an incomplete final record (a torn write) and drops it on compaction', async () => {
    const a = reopen();
    await a.set(S, 'k', '1');
    const full = encodeSet('default', 'cart', 'torn', '"never acknowledged"', 99, null);
    appendFileSync(path, full.slice(0, full.length - 7));
    const b = reopen();
    expect(b.journalReport?.tornBytes).toBe(Buffer.byteLength(full) - 7);
    expect((await b.get(S, 'k'))?.value).toBe('1');
    expect(await b.get(S, 'torn')).toBeNull();
    expect(readFileSync(path, 'utf8')).not.toContain('torn');
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    // Later writes land after a clean end, so the next open reads them.
    await b.set(S, 'after', '2');
    expect((await reopen().get(S, 'after'))?.value).toBe('2');
  });

  it('refuses a corrupt record in the middle, naming the file, and leaves the file untouched', async () => {
    const a = reopen();
    await a.set(S, 'k1', '1');
    appendFileSync(path, '{"t":"set","ns":"default","ks":"cart","k":"x"\n'); // complete line, bad record
    await a.set(S, 'k2', '2');
    const bytes = readFileSync(path);
    let err: unknown;
    try {
      reopen();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JournalCorruptError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(/line 3 \(byte offset \d+\)/);
    expect(readFileSync(path)).toEqual(bytes);
    // Following the message's advice (truncate at the offset) keeps what precedes it.
    const offset = (err as JournalCorruptError).offset;
    writeFileSync(path, bytes.subarray(0, offset));
    const b = reopen();
    expect((await b.get(S, 'k1'))?.value).toBe('1');
    expect(await b.get(S, 'k2')).toBeNull();
  });

  it('refuses a complete final line that is not a record, and a file that is not a journal', () => {
    writeFileSync(path, 'hello world\n');
    expect(() => reopen()).toThrow(/not a orrery-memory-state\/1 header/);
    writeFileSync(path, 'no newline at all');
    expect(() => reopen()).toThrow(JournalCorruptError);
    writeFileSync(path, '{"t":"hdr","magic":"orrery-memory-state/1","next":5}\n{"t":"bogus","ns":"a","ks":"b"}\n');
    expect(() => reopen()).toThrow(/line 2 .*unknown record type "bogus"/);
  });

  it('compacts on open: a header, one line per live key and the feed window, mode 0600, no temp file left', async () => {
    const a = reopen();
    for (let i = 0; i < 50; i++) await a.set(S, 'hot', String(i));
    await a.set(S, 'cold', '1');
    await a.set(S, 'del', '1');
    await a.delete(S, 'del');
    await a.set(S, 'ttl', '1', { ttlMs: 10 });
    const grown = statSync(path).size;
    clock.now += 10;
    await a.pruneChanges({ maxAgeMs: 0, maxEvents: 1 }); // the change feed keeps one change (the ttl set)
    const b = reopen();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    // header, cold, hot; the feed's counters; its retained change and the ttl key's expire (made by this open)
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[0]!)).toMatchObject({ t: 'hdr', magic: 'orrery-memory-state/1' });
    const records = lines.slice(1).map((l) => JSON.parse(l));
    expect(records.filter((r) => r.t === 'set').map((r) => r.k).sort()).toEqual(['cold', 'hot']);
    expect(records.filter((r) => r.t !== 'set').map((r) => [r.t, r.seq, r.op, r.k])).toEqual([
      ['feed', undefined, undefined, undefined],
      ['chg', 54, 'set', 'ttl'],
      ['chg', 55, 'expire', 'ttl'],
    ]);
    expect(statSync(path).size).toBeLessThan(grown);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([MEMORY_JOURNAL_FILE]);
    expect((await b.get(S, 'hot'))?.value).toBe('49');
  });

  it('compacts while running once the journal has grown past its threshold', async () => {
    const a = reopen({ compactMinBytes: 4096 });
    for (let i = 0; i < 200; i++) await a.set(S, 'hot', `"${'x'.repeat(40)}${i}"`);
    await a.pruneChanges({ maxAgeMs: 0, maxEvents: 1 }); // as statesvc's sweeper does: the snapshot keeps only the feed's window
    await new Promise((r) => setImmediate(r));
    expect(statSync(path).size).toBeLessThan(4096 + 200);
    await a.set(S, 'after', '1');
    const b = reopen();
    expect((await b.get(S, 'hot'))?.value).toBe(`"${'x'.repeat(40)}199"`);
    expect((await b.get(S, 'after'))?.value).toBe('1');
  });

  it('versions keep growing across restarts, also when the newest keys were deleted and compacted away', async () => {
    const a = reopen();
    await a.set(S, 'keep', '1');
    let top = 0;
    for (let i = 0; i < 5; i++) top = (await a.set(S, `tmp${i}`, '1')).version;
    for (let i = 0; i < 5; i++) await a.delete(S, `tmp${i}`);
    await a.deleteKeyspace(T);
    clock.now += 10;
    await a.pruneChanges({ maxAgeMs: 1, maxEvents: 0 }); // the change feed's window is past too
    const b = reopen(); // compacts: the deleted keys' records are gone
    expect(readFileSync(path, 'utf8')).not.toContain('tmp');
    const v = (await b.set(S, 'new', '1')).version;
    expect(v).toBeGreaterThan(top);
    await b.delete(S, 'new');
    const c = reopen();
    expect((await c.set(S, 'newer', '1')).version).toBeGreaterThan(v);
    expect(replayJournal(path, () => {}).next).toBeGreaterThan(v);
  });

  it('honours TTLs after a restart: absolute deadlines, expired keys dropped', async () => {
    const a = reopen();
    await a.set(S, 'short', '1', { ttlMs: 1000 });
    await a.set(S, 'long', '1', { ttlMs: 60_000 });
    await a.set(S, 'forever', '1');
    const deadline = (await a.get(S, 'long'))!.expiresAt;
    clock.now += 500;
    const b = reopen();
    expect((await b.get(S, 'short'))?.expiresAt).toBe(clock.now + 500);
    expect((await b.get(S, 'long'))?.expiresAt).toBe(deadline);
    clock.now += 500;
    expect(await b.get(S, 'short')).toBeNull();
    const c = reopen();
    expect((await c.list(S)).keys).toEqual(['forever', 'long']);
    expect(await c.metaCount(S)).toBe(2);
    // Its row is gone from the file; only the change feed remembers it (the set and the expire this open recorded).
    const records = readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(records.filter((r) => r.k === 'short').map((r) => [r.t, r.op])).toEqual([
      ['chg', 'set'],
      ['chg', 'expire'],
    ]);
    clock.now += 60_000;
    const d = reopen();
    expect((await d.list(S)).keys).toEqual(['forever']);
  });

  it('replays deleteKeyspace: the keyspace is empty and its quota starts over', async () => {
    const a = reopen();
    await a.setCounted(S, 'a', '1', {}, { maxKeys: 2 });
    await a.setCounted(S, 'b', '1', {}, { maxKeys: 2 });
    await a.set(T, 'sibling', '1');
    expect(await a.deleteKeyspace(S)).toBe(2);
    await a.setCounted(S, 'c', '1', {}, { maxKeys: 2 });
    const b = reopen();
    expect((await b.list(S)).keys).toEqual(['c']);
    expect(await b.metaCount(S)).toBe(1);
    expect((await b.get(T, 'sibling'))?.value).toBe('1');
    await b.setCounted(S, 'd', '1', {}, { maxKeys: 2 });
    await expect(b.setCounted(S, 'e', '1', {}, { maxKeys: 2 })).rejects.toMatchObject({ code: 'quota_keys' });
  });

  it('records purges of expired keys, so a clock that steps back does not revive them', async () => {
    const a = reopen();
    await a.setCounted(S, 'old', '1', { ttlMs: 10 }, { maxKeys: 1 });
    clock.now += 10;
    await a.setCounted(S, 'new', '1', {}, { maxKeys: 1 }); // purges 'old' to make room
    clock.now -= 10;
    const b = reopen();
    expect((await b.list(S)).keys).toEqual(['new']);
    expect(await b.usage(S)).toEqual({ keys: 1, bytes: 1 });
  });

  it('refuses writes after close (they could not be kept) and reads the journal again on the next open', async () => {
    const a = reopen();
    await a.set(S, 'k', '1');
    await a.close();
    await expect(a.set(S, 'k', '2')).rejects.toMatchObject({ code: 'internal' });
    expect((await a.get(S, 'k'))?.value).toBe('1');
    expect((await reopen().get(S, 'k'))?.value).toBe('1');
  });

  it('a failed append refuses the write and leaves memory and the version counter as they were', async () => {
    const a = reopen();
    const { version } = await a.set(S, 'k', '1');
    // Swap the journal's fd for a read-only one: the next write(2) fails (as on a full disk).
    const j = (a as unknown as { journal: { fd: number } }).journal;
    const appendFd = j.fd;
    const readOnly = openSync(path, 'r');
    j.fd = readOnly;
    await expect(a.set(S, 'k', '2')).rejects.toMatchObject({ code: 'internal', message: expect.stringContaining(path) });
    await expect(a.delete(S, 'k')).rejects.toMatchObject({ code: 'internal' });
    expect(await a.get(S, 'k')).toEqual({ value: '1', version, expiresAt: null });
    closeSync(readOnly);
    j.fd = appendFd; // a working file again, but the failed write could not be cut back: stay refused
    await expect(a.set(S, 'other', '1')).rejects.toThrow(/restart statesvc/);
    expect(await a.get(S, 'other')).toBeNull();
    const b = reopen();
    expect(await b.get(S, 'k')).toEqual({ value: '1', version, expiresAt: null });
    expect((await b.set(S, 'k', '3')).version).toBe(version + 1);
  });

  it('a property: any sequence of operations reads back identically after a restart', { timeout: 60_000 }, async () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'é/1');
    const scope = fc.constantFrom(S, T, { ...S, namespace: 'ns2' });
    const op = fc.oneof(
      fc.record({ t: fc.constant('set' as const), s: scope, k: key, v: fc.string({ maxLength: 8 }), ttl: fc.constantFrom(0, 0, 5, 50), ifv: fc.option(fc.nat(30), { nil: undefined }) }),
      fc.record({ t: fc.constant('counted' as const), s: scope, k: key, max: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ t: fc.constant('del' as const), s: scope, k: key }),
      fc.record({ t: fc.constant('dks' as const), s: scope }),
      fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ t: fc.constant('sweep' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        rmSync(path, { force: true });
        clock.now = 1_000_000;
        const a = new MemoryDriver({ now: () => clock.now, journal: { path, fsyncIntervalMs: 0 } });
        let top = 0;
        for (const o of ops) {
          try {
            if (o.t === 'set') top = Math.max(top, (await a.set(o.s, o.k, JSON.stringify(o.v), { ttlMs: o.ttl, ifVersion: o.ifv })).version);
            else if (o.t === 'counted') top = Math.max(top, (await a.setCounted(o.s, o.k, '1', {}, { maxKeys: o.max, namespaceByteBudget: 40 })).version);
            else if (o.t === 'del') await a.delete(o.s, o.k);
            else if (o.t === 'dks') await a.deleteKeyspace(o.s);
            else if (o.t === 'tick') clock.now += o.ms;
            else await a.sweepExpired();
          } catch (err) {
            if (!['version_conflict', 'quota_keys'].includes((err as { code?: string }).code ?? '')) throw err;
          }
        }
        const before = await dump(a);
        const b = new MemoryDriver({ now: () => clock.now, journal: { path, fsyncIntervalMs: 0 } });
        expect(await dump(b)).toEqual(before);
        for (const s of [S, T]) expect(await b.metaCount(s)).toBe((await b.usage(s)).keys);
        expect((await b.set(S, 'zz', '1')).version).toBeGreaterThan(top);
        await a.close();
        await b.close();
      }),
      { numRuns: 150 },
    );
  });
});

describe('openDriver memory with a data dir', () => {
  it('creates the dir (0700) and journal (0600), reopens with the data, one holder at a time', async () => {
    const dir = join(tmp(), 'state');
    const a = await openDriver({ driver: 'memory', dataDir: dir });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, MEMORY_JOURNAL_FILE)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
    const { version } = await a.set(S, 'k', '"v"');
    await expect(openDriver({ driver: 'memory', dataDir: dir })).rejects.toThrow(DataDirLockedError);
    await a.close();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const logs: string[] = [];
    const b = await openDriver({ driver: 'memory', dataDir: dir, log: (m) => logs.push(m) });
    expect(await b.get(S, 'k')).toEqual({ value: '"v"', version, expiresAt: null });
    expect(logs.join('\n')).toMatch(/1 live key\(s\) from 1 record\(s\)/);
    await b.close();
  });

  it('without a data dir nothing is written', async () => {
    const d = await openDriver({ driver: 'memory' });
    expect((d as MemoryDriver).journalReport).toBeUndefined();
    await d.close();
  });

  it('releases the lock when the journal cannot be opened', async () => {
    const dir = tmp();
    writeFileSync(join(dir, MEMORY_JOURNAL_FILE), 'garbage\n');
    await expect(openDriver({ driver: 'memory', dataDir: dir })).rejects.toThrow(JournalCorruptError);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});

describe('data dir lock', () => {
  it('takes over a stale lock (dead pid, or written before a reboot)', () => {
    const dir = tmp();
    writeFileSync(join(dir, LOCK_FILE), '999999999\n\norrery-statesvc\n');
    const l1 = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
    l1.release();
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\nanother-boot-id\norrery-statesvc\n`);
    let bootKnown = true;
    try {
      readFileSync('/proc/sys/kernel/random/boot_id');
    } catch {
      bootKnown = false;
    }
    if (bootKnown) lockDataDir(dir).release();
    expect(readdirSync(dir).filter((f) => f !== LOCK_FILE)).toEqual([]);
  });

  it('refuses a lock held by a live process and leaves it in place', () => {
    const dir = tmp();
    const theirs = `${process.ppid}\n\norrery-statesvc\n`;
    writeFileSync(join(dir, LOCK_FILE), theirs);
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by another process \\(pid ${process.ppid}\\)`));
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(theirs);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
  });
});
