/**
 * The keyspace change feed (GET /v1/changes) end to end, on the real orrery-statesvc: concurrent
 * writers (on Postgres through two statesvc processes sharing the database), a reader that
 * disconnects and resumes (alternating replicas, `since` and `Last-Event-ID`) and the SDK's
 * `changes()` each see every change exactly once, numbered 1…head with no gap; replaying them
 * gives exactly the stored rows. Also: the window (410 `changes_expired`), keyspace isolation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { createStateClient, type StateChange } from '@orrery/sdk';
import { StateChangeEventSchema } from '@orrery/spec';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x6c);
const KEYSPACES = '- {namespace: default, keyspace: feed, maxKeys: 1000}\n- {namespace: default, keyspace: other}\n';
const scopeHeaders = (keyspace: string, token = deriveStateToken(MASTER, 'default', keyspace)) => ({
  authorization: `Bearer ${token}`,
  'x-orrery-state-namespace': 'default',
  'x-orrery-state-keyspace': keyspace,
});

interface Frame {
  id?: string;
  event: string;
  data?: string;
}

/** Reads SSE frames (heartbeats too, as a frame with neither id nor data) until `until` says stop or the stream ends; then aborts. */
async function readFrames(res: Response, ctrl: AbortController, until: (f: Frame) => boolean): Promise<void> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let end: number;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const f: Frame = { event: 'message' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const [field, ...rest] = line.split(':');
          const v = rest.join(':').replace(/^ /, '');
          if (field === 'id') f.id = v;
          else if (field === 'event') f.event = v;
          else if (field === 'data') data.push(v);
        }
        if (data.length) f.data = data.join('\n');
        if (until(f)) return;
      }
    }
  } catch (err) {
    if (!ctrl.signal.aborted) throw err;
  } finally {
    ctrl.abort();
  }
}

/** The first frame of a fresh stream is its start position: the keyspace's head right now. */
async function headOf(url: string, keyspace: string): Promise<number> {
  const ctrl = new AbortController();
  const res = await fetch(`${url}/v1/changes`, { headers: scopeHeaders(keyspace), signal: ctrl.signal });
  expect(res.status).toBe(200);
  let head = -1;
  await readFrames(res, ctrl, (f) => {
    head = Number(f.id);
    return true;
  });
  return head;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const driver of ['memory', 'postgres'] as const) {
  describe(`change feed (${driver} driver${driver === 'postgres' ? ', two statesvc processes' : ''})`, () => {
    let dir: string;
    let procs: StatesvcProcess[] = [];
    let sql: ReturnType<typeof postgres> | undefined;
    let drop = async () => {};

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'orrery-feed-'));
      writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
      writeFileSync(join(dir, 'keyspaces.yaml'), KEYSPACES);
      const args = ['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), '--sweep-interval', '200ms', '--changes-heartbeat', '300ms'];
      if (driver === 'postgres') {
        const tdb = await createTestDatabase();
        drop = () => tdb.drop();
        sql = postgres(tdb.url, { max: 2, onnotice: () => {} });
        args.push('--driver', 'postgres', '--database-url', tdb.url, '--pool-size', '6');
        // Migrations run under an advisory lock: starting both at once is fine.
        procs = await Promise.all([spawnStatesvc(args), spawnStatesvc(args)]);
      } else {
        procs = [await spawnStatesvc([...args, '--driver', 'memory'])];
      }
    }, 120_000);

    afterAll(async () => {
      await Promise.all(procs.map((p) => p.stop()));
      await sql?.end({ timeout: 5 });
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('concurrent writers; a resuming reader and the SDK see every change once, in order, with no gap; the replay is the table', { timeout: 120_000 }, async () => {
      const urls = procs.map((p) => p.url);
      const h = scopeHeaders('feed');
      const start = await headOf(urls[0]!, 'feed');
      expect(start).toBe(0);

      // --- writers: 8 loops spread over the replicas; sets, CAS, deletes and 1 s TTLs ---
      const acked = new Map<number, { key: string; value: unknown }>();
      let deletes = 0;
      let writersDone = false;
      const writers = Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          const url = urls[w % urls.length]!;
          for (let i = 0; i < 40; i++) {
            const key = `k${(w * 13 + i * 7) % 24}`;
            const value = { w, i };
            if (i % 9 === 8) {
              const r = await fetch(`${url}/v1/state/${key}`, { method: 'DELETE', headers: h });
              if (r.status === 200) deletes++;
              await r.body?.cancel();
              continue;
            }
            const headers: Record<string, string> = { ...h, 'content-type': 'application/json' };
            if (i % 7 === 3) headers['x-orrery-state-ttl'] = '1';
            const r = await fetch(`${url}/v1/state/${key}`, { method: 'PUT', headers, body: JSON.stringify(value) });
            expect(r.status).toBe(200);
            const { version } = (await r.json()) as { version: number };
            acked.set(version, { key, value });
          }
        }),
      ).then(() => {
        writersDone = true;
      });
      // Another keyspace written at the same time: its changes must never show up in feed's streams.
      const other = (async () => {
        for (let i = 0; i < 30; i++) {
          const r = await fetch(`${urls[i % urls.length]}/v1/state/secret-${i}`, { method: 'PUT', headers: { ...scopeHeaders('other'), 'content-type': 'application/json' }, body: '1' });
          expect(r.status).toBe(200);
        }
      })();

      // --- reader 1: raw SSE, drops the connection every few dozen events and resumes elsewhere ---
      let target = Number.POSITIVE_INFINITY;
      const raw: Array<{ id: number; event: StateChange }> = [];
      let connections = 0;
      const reader = (async () => {
        let last = 0;
        while (last < target) {
          const url = urls[connections % urls.length]!;
          // Alternately the query parameter and the header EventSource sends on a reconnect.
          const viaHeader = connections % 2 === 1;
          const ctrl = new AbortController();
          const res = await fetch(`${url}/v1/changes${viaHeader ? '' : `?since=${last}`}`, {
            headers: viaHeader ? { ...h, 'last-event-id': String(last) } : h,
            signal: ctrl.signal,
          });
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
          connections++;
          const quota = 25 + ((connections * 17) % 40);
          let got = 0;
          let first = true;
          await readFrames(res, ctrl, (f) => {
            if (f.id === undefined && f.data === undefined) return last >= target; // a heartbeat
            if (first) {
              // Every stream starts with its position, exactly where it was asked to resume.
              expect(f).toEqual({ event: 'message', id: String(last) });
              first = false;
              return false;
            }
            expect(f.event).toBe('message');
            if (f.data === undefined) return false;
            const event = StateChangeEventSchema.parse(JSON.parse(f.data)) as StateChange;
            raw.push({ id: Number(f.id), event });
            last = event.seq;
            return ++got >= quota || last >= target;
          });
        }
      })();

      // --- reader 2: the SDK from the start, through the first replica ---
      const tokenPath = join(dir, 'token-feed');
      writeFileSync(tokenPath, JSON.stringify({ namespace: 'default', keyspace: 'feed', token: deriveStateToken(MASTER, 'default', 'feed') }));
      const viaSdk: StateChange[] = [];
      const stopSdk = new AbortController();
      const sdkReader = (async () => {
        for await (const c of createStateClient({ url: urls[0], tokenPath }).changes({ since: 0, signal: stopSdk.signal })) viaSdk.push(c);
      })();

      await writers;
      await other;
      expect(writersDone).toBe(true);
      // The TTL keys expire within 1 s and the sweepers remove them (expire changes) within 200 ms more.
      await sleep(1700);
      target = await headOf(urls[urls.length - 1]!, 'feed');
      for (let i = 0; i < 200 && (viaSdk.at(-1)?.seq ?? 0) < target; i++) await sleep(50);
      stopSdk.abort();
      await Promise.all([reader, sdkReader]);

      const seqs = raw.map((r) => r.event.seq);
      expect(seqs).toEqual(Array.from({ length: target }, (_, i) => i + 1));
      for (const r of raw) expect(r.id).toBe(r.event.seq);
      expect(connections).toBeGreaterThan(3);
      expect(viaSdk).toEqual(raw.map((r) => r.event));
      expect(raw.some((r) => r.event.key.startsWith('secret-'))).toBe(false);

      // Every acknowledged write is there once, with its value; every successful delete once.
      const sets = raw.filter((r) => r.event.op === 'set').map((r) => r.event);
      expect(sets.map((c) => c.version).sort((a, b) => a - b)).toEqual([...acked.keys()].sort((a, b) => a - b));
      for (const c of sets) expect({ key: c.key, value: c.value }).toEqual(acked.get(c.version));
      expect(raw.filter((r) => r.event.op === 'delete')).toHaveLength(deletes);
      expect(raw.filter((r) => r.event.op === 'expire').length).toBeGreaterThan(0);

      // Replayed, the changes are the keyspace: through the API, and on Postgres row by row in the table.
      const mirror = new Map<string, { value: unknown; version: number }>();
      for (const { event: c } of raw) {
        if (c.op === 'set') mirror.set(c.key, { value: c.value, version: c.version });
        else mirror.delete(c.key);
      }
      const list = (await (await fetch(`${urls[0]}/v1/state?limit=1000`, { headers: h })).json()) as { keys: string[] };
      expect([...mirror.keys()].sort()).toEqual([...list.keys].sort());
      for (const key of list.keys) {
        const r = await fetch(`${urls[0]}/v1/state/${key}`, { headers: h });
        expect({ value: ((await r.json()) as { value: unknown }).value, version: Number(r.headers.get('x-orrery-state-version')) }).toEqual(mirror.get(key));
      }
      if (sql) {
        const rows = await sql<Array<{ key: string; value: string; version: string }>>`select key, value, version from state_entries where namespace = 'default' and keyspace = 'feed' order by key`;
        expect(rows.map((r) => [r.key, JSON.parse(r.value), Number(r.version)])).toEqual(
          [...mirror.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, v.value, v.version]),
        );
        const table = await sql<Array<{ seq: string; key: string; op: string }>>`select seq, key, op from state_changes where namespace = 'default' and keyspace = 'feed' order by seq`;
        expect(table.map((r) => [Number(r.seq), r.key, r.op])).toEqual(raw.map((r) => [r.event.seq, r.event.key, r.event.op]));
      }

      // The other keyspace has its own numbering, and a token for feed cannot follow it.
      expect(await headOf(urls[0]!, 'other')).toBe(30);
      const forged = await fetch(`${urls[0]}/v1/changes?since=0`, { headers: { ...scopeHeaders('other', deriveStateToken(MASTER, 'default', 'feed')) } });
      expect(forged.status).toBe(403);
      expect(await forged.json()).toMatchObject({ code: 'forbidden' });
    });

    it('a prefix filter: only matching keys, and heartbeats move Last-Event-ID past what it skipped', { timeout: 30_000 }, async () => {
      const url = procs[0]!.url;
      const h = scopeHeaders('feed');
      const head = await headOf(url, 'feed');
      const ctrl = new AbortController();
      const res = await fetch(`${url}/v1/changes?prefix=pre%2F&since=${head}`, { headers: h, signal: ctrl.signal });
      const frames: Frame[] = [];
      const done = readFrames(res, ctrl, (f) => {
        if (f.id === undefined && f.data === undefined) return false;
        frames.push(f);
        return frames.length >= 3 && f.id !== undefined && Number(f.id) >= head + 3 && f.data === undefined;
      });
      for (const key of ['pre/a', 'zzz', 'pre/b']) {
        const r = await fetch(`${url}/v1/state/${encodeURIComponent(key)}`, { method: 'PUT', headers: { ...h, 'content-type': 'application/json' }, body: '1' });
        expect(r.status).toBe(200);
      }
      // One more change that the prefix skips: a heartbeat then says the stream has read past it.
      await fetch(`${url}/v1/state/yyy`, { method: 'PUT', headers: { ...h, 'content-type': 'application/json' }, body: '1' });
      await done;
      const events = frames.filter((f) => f.data !== undefined).map((f) => JSON.parse(f.data!) as StateChange);
      expect(events.map((e) => [e.seq, e.key])).toEqual([
        [head + 1, 'pre/a'],
        [head + 3, 'pre/b'],
      ]);
      expect(frames.at(-1)).toEqual({ event: 'message', id: String(head + 4) });
    });
  });

  describe(`change feed window (${driver} driver)`, () => {
    let dir: string;
    let svc: StatesvcProcess;
    let drop = async () => {};

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'orrery-feed-window-'));
      writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
      writeFileSync(join(dir, 'keyspaces.yaml'), KEYSPACES);
      const args = ['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), '--driver', driver];
      args.push('--sweep-interval', '100ms', '--changes-retention-events', '5', '--changes-max-streams', '2', '--changes-heartbeat', '200ms');
      if (driver === 'postgres') {
        const tdb = await createTestDatabase();
        drop = () => tdb.drop();
        args.push('--database-url', tdb.url);
      }
      svc = await spawnStatesvc(args);
    }, 90_000);

    afterAll(async () => {
      await svc?.stop();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a reader behind the retained window gets 410 changes_expired; one inside it resumes; one ahead gets 410 too', { timeout: 30_000 }, async () => {
      const h = scopeHeaders('feed');
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`${svc.url}/v1/state/w${i}`, { method: 'PUT', headers: { ...h, 'content-type': 'application/json' }, body: String(i) });
        expect(r.status).toBe(200);
      }
      // The sweeper (every 100 ms) prunes to the newest 5: the window starts after 15.
      let status = 0;
      for (let i = 0; i < 100 && status !== 410; i++) {
        const r = await fetch(`${svc.url}/v1/changes?since=14`, { headers: h });
        status = r.status;
        if (status === 410) {
          const body = (await r.json()) as { code: string; error: string };
          expect(body.code).toBe('changes_expired');
          expect(body.error).toMatch(/oldest position this keyspace's feed can resume from is 15\); re-read the keys/);
        } else {
          await r.body?.cancel();
          await sleep(100);
        }
      }
      expect(status).toBe(410);
      // Last-Event-ID behind the window: the same.
      expect((await fetch(`${svc.url}/v1/changes`, { headers: { ...h, 'last-event-id': '3' } })).status).toBe(410);
      // Inside the window: the newest 5, in order.
      const ctrl = new AbortController();
      const res = await fetch(`${svc.url}/v1/changes?since=15`, { headers: h, signal: ctrl.signal });
      expect(res.status).toBe(200);
      const keys: string[] = [];
      await readFrames(res, ctrl, (f) => {
        if (f.data !== undefined) keys.push((JSON.parse(f.data) as StateChange).key);
        return keys.length === 5;
      });
      expect(keys).toEqual(['w15', 'w16', 'w17', 'w18', 'w19']);
      // Ahead of the newest change (a feed that started over): 410 as well, saying so.
      const ahead = await fetch(`${svc.url}/v1/changes?since=999`, { headers: h });
      expect(ahead.status).toBe(410);
      expect(((await ahead.json()) as { error: string }).error).toMatch(/ahead of this keyspace's newest change \(20\)/);
    });

    it('bad positions are 400; streams per keyspace are bounded (429) and freed when a client leaves', { timeout: 30_000 }, async () => {
      const h = scopeHeaders('feed');
      for (const q of ['since=-1', 'since=abc', 'since=1e3', 'prefix=%23x', 'prefix=%00']) {
        const r = await fetch(`${svc.url}/v1/changes?${q}`, { headers: h });
        expect(r.status, q).toBe(400);
        expect(((await r.json()) as { code: string }).code).toBe('bad_request');
      }
      expect((await fetch(`${svc.url}/v1/changes`, { headers: { ...h, 'last-event-id': 'x' } })).status).toBe(400);
      expect((await fetch(`${svc.url}/v1/changes`, { method: 'POST', headers: h })).status).toBe(400);
      expect((await fetch(`${svc.url}/v1/changes`)).status).toBe(401);
      const open = [new AbortController(), new AbortController()];
      const streams = await Promise.all(open.map((c) => fetch(`${svc.url}/v1/changes`, { headers: h, signal: c.signal })));
      expect(streams.map((s) => s.status)).toEqual([200, 200]);
      const third = await fetch(`${svc.url}/v1/changes`, { headers: h });
      expect(third.status).toBe(429);
      expect(await third.json()).toMatchObject({ code: 'too_many_streams' });
      // Another keyspace has its own budget.
      const ctrlOther = new AbortController();
      expect((await fetch(`${svc.url}/v1/changes`, { headers: scopeHeaders('other'), signal: ctrlOther.signal })).status).toBe(200);
      ctrlOther.abort();
      open[0]!.abort();
      let again = 429;
      for (let i = 0; i < 50 && again === 429; i++) {
        await sleep(50);
        const r = await fetch(`${svc.url}/v1/changes`, { headers: h });
        again = r.status;
        await r.body?.cancel();
      }
      expect(again).toBe(200);
      open[1]!.abort();
      // The gauge follows the open streams (each closed when its client went).
      let metrics = '';
      for (let i = 0; i < 50; i++) {
        metrics = await (await fetch(`${svc.url}/metrics`)).text();
        if (/orrery_statesvc_change_streams 0\b/.test(metrics)) break;
        await sleep(50);
      }
      expect(metrics).toMatch(/orrery_statesvc_change_streams 0\b/);
    });

    it('a stream ends with an error event (forbidden) once its keyspace is no longer declared', { timeout: 30_000 }, async () => {
      const ctrl = new AbortController();
      const res = await fetch(`${svc.url}/v1/changes`, { headers: scopeHeaders('other'), signal: ctrl.signal });
      expect(res.status).toBe(200);
      writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: feed}\n');
      svc.proc.kill('SIGHUP'); // re-read the keyspaces file now
      const frames: Frame[] = [];
      await readFrames(res, ctrl, (f) => {
        frames.push(f);
        return f.event === 'error';
      });
      expect(frames.at(-1)?.event).toBe('error');
      expect(JSON.parse(frames.at(-1)!.data!)).toMatchObject({ code: 'forbidden' });
      expect((await fetch(`${svc.url}/v1/changes`, { headers: scopeHeaders('other') })).status).toBe(403);
      writeFileSync(join(dir, 'keyspaces.yaml'), KEYSPACES);
      svc.proc.kill('SIGHUP');
    });
  });
}
