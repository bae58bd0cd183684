/** Idempotency outcomes in the memory driver's journal: one record with their write, kept across restarts. */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryJournalFixture } from './memory-journal-fixture.ts';
import { STATE_OWNER, type IdempotencyClaim, type Scope } from './types.ts';

const S: Scope = { namespace: 'default', owner: STATE_OWNER, keyspace: 'cart' };
const claim = (key: string, requestHash = 'h', retentionMs = 60_000): IdempotencyClaim => ({ key, requestHash, retentionMs });
const NO_LIMIT = { maxKeys: 100 };

describe('memory driver: idempotency outcomes in the journal', () => {
  const journal = memoryJournalFixture('orrery-memidem-');
  const { clock, reopen } = journal;
  const lines = () => readFileSync(journal.path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

  it('the outcome rides on the set or del line that makes the write; one that changed nothing is a line of its own', async () => {
    const a = reopen();
    const put = await a.setIdempotent(S, 'k', '1', {}, NO_LIMIT, claim('put-1', 'hp'));
    await a.deleteIdempotent(S, 'k', {}, claim('del-1', 'hd'));
    await a.setIdempotent(S, 'k', '2', { ifVersion: 999 }, NO_LIMIT, claim('cas-1', 'hc'));
    const written = lines().slice(1); // after the header
    const set = written.find((l) => l.t === 'set')!;
    expect(set).toMatchObject({ k: 'k', ver: put.version, idem: { k: 'put-1', h: 'hp', st: 200, res: 'ok', ver: put.version, exp: clock.now + 60_000 } });
    expect(written.find((l) => l.t === 'del')).toMatchObject({ k: 'k', idem: { k: 'del-1', h: 'hd', st: 200, res: 'deleted', ver: null } });
    expect(written.filter((l) => l.t === 'idem')).toEqual([
      { t: 'idem', ns: 'default', ks: 'cart', idem: { k: 'cas-1', h: 'hc', exp: clock.now + 60_000, st: 412, res: 'version_conflict', ver: null } },
    ]);
  });

  it('a restart replays every stored outcome; the retry writes nothing', async () => {
    const a = reopen();
    const put = await a.setIdempotent(S, 'k', '1', {}, NO_LIMIT, claim('put'));
    await a.setIdempotent(S, 'k', '9', { ifVersion: 0 }, NO_LIMIT, claim('conflict'));
    await a.set(S, 'gone', '1');
    await a.deleteIdempotent(S, 'gone', {}, claim('del'));
    await a.deleteIdempotent(S, 'never', {}, claim('missing'));
    await a.close();
    const b = reopen(); // replays and compacts
    expect(await b.setIdempotent(S, 'k', '1', {}, NO_LIMIT, claim('put'))).toEqual({ status: 200, result: 'ok', version: put.version, replayed: true });
    expect(await b.setIdempotent(S, 'k', '9', { ifVersion: 0 }, NO_LIMIT, claim('conflict'))).toEqual({ status: 412, result: 'version_conflict', version: null, replayed: true });
    expect(await b.deleteIdempotent(S, 'gone', {}, claim('del'))).toEqual({ status: 200, result: 'deleted', version: null, replayed: true });
    expect(await b.deleteIdempotent(S, 'never', {}, claim('missing'))).toEqual({ status: 404, result: 'missing', version: null, replayed: true });
    await expect(b.setIdempotent(S, 'k', '2', {}, NO_LIMIT, claim('put', 'other'))).rejects.toMatchObject({ code: 'idempotency_mismatch' });
    expect(await b.get(S, 'k')).toMatchObject({ value: '1', version: put.version });
    expect(await b.idempotencyUsage(S)).toMatchObject({ records: 4 });
    // The compaction on open kept them, as lines of their own.
    expect(lines().filter((l) => l.t === 'idem').map((l) => (l.idem as { k: string }).k).sort()).toEqual(['conflict', 'del', 'missing', 'put']);
    await b.close();
    const c = reopen();
    expect(await c.idempotencyUsage(S)).toMatchObject({ records: 4 });
  });

  it('outcomes past their retention are dropped on open and never revived', async () => {
    const a = reopen();
    await a.setIdempotent(S, 'k', '1', {}, NO_LIMIT, claim('short', 'h', 1000));
    await a.setIdempotent(S, 'k', '2', {}, NO_LIMIT, claim('long', 'h', 10_000));
    await a.close();
    clock.now += 1000;
    const b = reopen();
    expect(await b.idempotencyUsage(S)).toMatchObject({ records: 1 });
    expect(lines().filter((l) => l.t === 'idem').map((l) => (l.idem as { k: string }).k)).toEqual(['long']);
    // The key is free again: a different request with it is a new write.
    expect(await b.setIdempotent(S, 'k', '3', {}, NO_LIMIT, claim('short', 'other', 1000))).toMatchObject({ result: 'ok', replayed: false });
  });

  it('a torn final line loses the write and its outcome together (never one without the other)', async () => {
    const a = reopen();
    await a.set(S, 'k', '1');
    await a.close();
    // What a crash in the middle of the write(2) of an idempotent set leaves: no trailing newline.
    const full = `{"t":"set","ns":"default","ks":"cart","k":"k","ver":99,"exp":null,"v":"2","idem":{"k":"torn","h":"h","exp":${clock.now + 60_000},"st":200,"res":"ok","ver":99}}`;
    appendFileSync(journal.path, full.slice(0, -5));
    const b = reopen();
    expect(await b.get(S, 'k')).toMatchObject({ value: '1' });
    expect(await b.idempotencyUsage(S)).toEqual({ records: 0, bytes: 0 });
    // The retry is a new write.
    expect(await b.setIdempotent(S, 'k', '2', {}, NO_LIMIT, claim('torn'))).toMatchObject({ result: 'ok', replayed: false });
  });

  it('refuses a journal whose idem record is malformed, naming the line', () => {
    writeFileSync(journal.path, `{"t":"hdr","magic":"orrery-memory-state/1","next":1}\n{"t":"idem","ns":"default","ks":"cart","idem":{"k":"x","h":"h","exp":1,"st":200,"res":"maybe","ver":null}}\n`);
    expect(() => reopen()).toThrow(/line 2 .*idem needs k, h, exp, st and res/);
  });
});
