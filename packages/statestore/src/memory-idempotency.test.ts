/** Idempotency outcomes and recorded reads in the memory driver's journal: one record with their write, kept across restarts. */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { idempotencyRecordBytes, recordedReadBytes } from '@orrery/spec';
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

  it('a recorded read is an idem line of its own carrying the value; a restart and its compaction keep it, replayed with the value it read', async () => {
    const a = reopen();
    const { version } = await a.set(S, 'k', '{"n":"é"}', { ttlMs: 600_000 });
    const found = await a.getRecorded(S, 'k', {}, claim('inv.1'));
    expect(await a.getRecorded(S, 'none', {}, claim('inv.2'))).toMatchObject({ status: 404, replayed: false });
    const idem = lines().filter((l) => l.t === 'idem');
    expect(idem).toEqual([
      { t: 'idem', ns: 'default', ks: 'cart', idem: { k: 'inv.1', h: 'h', exp: clock.now + 60_000, st: 200, res: 'found', ver: version, v: '{"n":"é"}', vexp: clock.now + 600_000 } },
      { t: 'idem', ns: 'default', ks: 'cart', idem: { k: 'inv.2', h: 'h', exp: clock.now + 60_000, st: 404, res: 'missing', ver: null } },
    ]);
    await a.set(S, 'k', '2');
    await a.set(S, 'none', '3');
    await a.close();
    clock.now += 1000;
    const b = reopen(); // replays and compacts
    expect(await b.getRecorded(S, 'k', {}, claim('inv.1'))).toEqual({ ...found, replayed: true });
    expect(await b.getRecorded(S, 'none', {}, claim('inv.2'))).toEqual({ status: 404, entry: null, replayed: true });
    await expect(b.setIdempotent(S, 'k', '1', {}, NO_LIMIT, claim('inv.1', 'put'))).rejects.toMatchObject({ code: 'idempotency_mismatch' });
    // Counted with the value's 10 UTF-8 bytes (9 characters), also after the replay recomputed it.
    expect(await b.idempotencyUsage(S)).toEqual({ records: 2, bytes: recordedReadBytes('inv.1', 10) + idempotencyRecordBytes('inv.2') });
    expect(lines().filter((l) => l.t === 'idem').map((l) => l.idem)).toEqual(idem.map((l) => l.idem));
    await b.close();
    const c = reopen();
    expect(await c.getRecorded(S, 'k', {}, claim('inv.1'))).toEqual({ ...found, replayed: true });
  });

  it('a keyspace deletion drops its recorded reads holding values for good: a restart does not revive them', async () => {
    const a = reopen();
    const T: Scope = { ...S, keyspace: 'no-rows-left' };
    await a.set(S, 'k', '"secret"');
    await a.set(T, 'k', '"also secret"');
    await a.getRecorded(S, 'k', {}, claim('inv.1', 'g'));
    await a.getRecorded(T, 'k', {}, claim('inv.1', 'g'));
    await a.delete(T, 'k'); // T has no rows when it is deleted: the deletion is journaled anyway
    await a.deleteKeyspace(S);
    await a.deleteKeyspace(T);
    await a.close();
    for (let i = 0; i < 2; i++) {
      // Replayed, then once more from the compacted snapshot.
      const b = reopen();
      expect(await b.idempotencyUsage(S)).toEqual({ records: 0, bytes: 0 });
      expect(await b.idempotencyUsage(T)).toEqual({ records: 0, bytes: 0 });
      await b.close();
    }
  });

  it('a journal written before recorded reads (no v, no vexp) opens as before', async () => {
    const exp = clock.now + 60_000;
    writeFileSync(
      journal.path,
      `{"t":"hdr","magic":"orrery-memory-state/1","next":10}\n` +
        `{"t":"set","ns":"default","ks":"cart","k":"k","ver":7,"exp":null,"v":"1","idem":{"k":"put","h":"h","exp":${exp},"st":200,"res":"ok","ver":7}}\n` +
        `{"t":"idem","ns":"default","ks":"cart","idem":{"k":"gone","h":"h","exp":${exp},"st":404,"res":"missing","ver":null}}\n`,
    );
    const a = reopen();
    expect(await a.setIdempotent(S, 'k', '1', {}, NO_LIMIT, claim('put'))).toEqual({ status: 200, result: 'ok', version: 7, replayed: true });
    expect(await a.deleteIdempotent(S, 'x', {}, claim('gone'))).toEqual({ status: 404, result: 'missing', version: null, replayed: true });
    expect(await a.idempotencyUsage(S)).toEqual({ records: 2, bytes: idempotencyRecordBytes('put') + idempotencyRecordBytes('gone') });
  });

  it('refuses a journal whose idem record is malformed, naming the line', () => {
    writeFileSync(journal.path, `{"t":"hdr","magic":"orrery-memory-state/1","next":1}\n{"t":"idem","ns":"default","ks":"cart","idem":{"k":"x","h":"h","exp":1,"st":200,"res":"maybe","ver":null}}\n`);
    expect(() => reopen()).toThrow(/line 2 .*idem needs k, h, exp, st and res/);
    // A found record without the value it read, and a value on another result.
    writeFileSync(journal.path, `{"t":"hdr","magic":"orrery-memory-state/1","next":1}\n{"t":"idem","ns":"default","ks":"cart","idem":{"k":"x","h":"h","exp":1,"st":200,"res":"found","ver":3}}\n`);
    expect(() => reopen()).toThrow(/line 2 .*carries v/);
    writeFileSync(journal.path, `{"t":"hdr","magic":"orrery-memory-state/1","next":1}\n{"t":"idem","ns":"default","ks":"cart","idem":{"k":"x","h":"h","exp":1,"st":404,"res":"missing","ver":null,"v":"1"}}\n`);
    expect(() => reopen()).toThrow(/line 2 .*carries v/);
    writeFileSync(journal.path, `{"t":"hdr","magic":"orrery-memory-state/1","next":1}\n{"t":"idem","ns":"default","ks":"cart","idem":{"k":"x","h":"h","exp":1,"st":200,"res":"found","ver":3,"v":"1","vexp":"soon"}}\n`);
    expect(() => reopen()).toThrow(/line 2 .*vexp/);
  });
});
