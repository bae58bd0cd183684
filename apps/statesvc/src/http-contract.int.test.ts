/* eslint-disable @typescript-eslint/no-explicit-any -- response JSON is inspected loosely */
/**
 * The statesvc HTTP contract against the real `orrery-statesvc` process, on both drivers:
 * every route, header and error code of RFC-0023 §3. Every answer is also checked against the
 * wire contract in @orrery/spec (STATESVC_HTTP_API), which docs/http-api.md is generated from.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken, signAdminUrl, signKeyspaceDeletionUrl } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { checkRouteAnswer, STATESVC_HTTP_API } from '@orrery/spec';
import { scopedStateCall, type ScopedCall } from './scoped-state-call.ts';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x5a);
const KEYSPACES = `
- {namespace: default, keyspace: cart, maxKeys: 5, maxValueBytes: 1000}
- {namespace: default, keyspace: other}
- {namespace: default, keyspace: doomed}
- {namespace: default, keyspace: ledger, idempotencyRetention: 2h}
- {namespace: team-b, keyspace: cart}
- {namespace: budget, keyspace: a, maxValueBytes: 1000}
- {namespace: budget, keyspace: b, defaultTTL: 1h}
`;


for (const driver of ['memory', 'postgres'] as const) {
  describe(`statesvc HTTP contract (${driver} driver)`, () => {
    let dir: string;
    let svc: StatesvcProcess;
    let dropDb = async () => {};

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-'));
      writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
      writeFileSync(join(dir, 'keyspaces.yaml'), KEYSPACES);
      const args = ['--driver', driver, '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), '--namespace-byte-budget', '4500', '--changes-max-streams', '2'];
      if (driver === 'postgres') {
        const tdb = await createTestDatabase();
        dropDb = () => tdb.drop();
        args.push('--database-url', tdb.url);
      }
      svc = await spawnStatesvc(args);
    }, 90_000);

    /** What the answers checked against the contract exercised (`GET /v1/state/{key} 200`, `… not_found`). */
    const exercised = new Set<string>();
    const checkContract = (method: string, path: string, status: number, json: unknown) => exercised.add(checkRouteAnswer(STATESVC_HTTP_API, method, path, status, json));
    /** fetch for the routes without scope headers (admin, health); the answer is checked against the contract. */
    async function plain(path: string, method = 'GET', headers: Record<string, string> = {}) {
      const res = await fetch(svc.url + path, { method, headers });
      const text = await res.text();
      const json: any = res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
      checkContract(method, path, res.status, json);
      return { status: res.status, json, text };
    }

    afterAll(async () => {
      await svc?.stop();
      await dropDb();
      rmSync(dir, { recursive: true, force: true });
    });

    async function call(method: string, path: string, c: ScopedCall = {}) {
      const r = await scopedStateCall(svc.url, MASTER, { ns: 'default', ks: 'cart' }, method, path, c);
      checkContract(method, path, r.status, r.json);
      return r;
    }

    const expectError = (r: { status: number; json: any }, status: number, code: string) => {
      expect({ status: r.status, code: r.json?.code }).toEqual({ status, code });
      expect(typeof r.json.error).toBe('string');
    };

    it('PUT, GET, versions and TTL header', async () => {
      const put = await call('PUT', '/v1/state/user%2F1', { body: '{"items":[1,2]}' });
      expect(put.status).toBe(200);
      const v = put.json.version as number;
      expect(put.headers.get('x-orrery-state-version')).toBe(String(v));
      const get = await call('GET', '/v1/state/user%2F1');
      expect(get.status).toBe(200);
      expect(get.json).toEqual({ value: { items: [1, 2] } });
      expect(get.headers.get('x-orrery-state-version')).toBe(String(v));
      expect(get.headers.get('x-orrery-state-ttl')).toBeNull();
      const put2 = await call('PUT', '/v1/state/user%2F1', { body: '"x"', headers: { 'x-orrery-state-ttl': '120' } });
      expect(put2.json.version).toBeGreaterThan(v);
      const get2 = await call('GET', '/v1/state/user%2F1');
      expect(Number(get2.headers.get('x-orrery-state-ttl'))).toBeGreaterThan(100);
      expectError(await call('GET', '/v1/state/missing'), 404, 'not_found');
    });

    it('If-Match on PUT and DELETE; 412 version_conflict', async () => {
      const { json } = await call('PUT', '/v1/state/im', { body: '1' });
      expectError(await call('PUT', '/v1/state/im', { body: '2', headers: { 'if-match': String(json.version + 1) } }), 412, 'version_conflict');
      const ok = await call('PUT', '/v1/state/im', { body: '2', headers: { 'if-match': `"${json.version}"` } });
      expect(ok.status).toBe(200);
      expectError(await call('PUT', '/v1/state/im', { body: '3', headers: { 'if-match': '0' } }), 412, 'version_conflict');
      expectError(await call('DELETE', '/v1/state/im', { headers: { 'if-match': String(json.version) } }), 412, 'version_conflict');
      expect((await call('DELETE', '/v1/state/im', { headers: { 'if-match': String(ok.json.version) } })).json).toEqual({ deleted: true });
      expectError(await call('DELETE', '/v1/state/im'), 404, 'not_found');
      // A precondition on a missing key fails: 412, not 404 (RFC-0023: missing or mismatched → 412).
      expectError(await call('DELETE', '/v1/state/im', { headers: { 'if-match': String(ok.json.version) } }), 412, 'version_conflict');
      expectError(await call('DELETE', '/v1/state/never', { headers: { 'if-match': '0' } }), 412, 'version_conflict');
      expectError(await call('PUT', '/v1/state/im', { body: '1', headers: { 'if-match': 'abc' } }), 400, 'bad_request');
    });

    it('X-Orrery-State-Version on a write is a precondition like If-Match; both must agree', async () => {
      const v = (await call('PUT', '/v1/state/xv', { body: '1', headers: { 'x-orrery-state-version': '0' } })).json.version as number;
      expect(v).toBeGreaterThan(0);
      expectError(await call('PUT', '/v1/state/xv', { body: '2', headers: { 'x-orrery-state-version': '0' } }), 412, 'version_conflict');
      expectError(await call('PUT', '/v1/state/xv', { body: '2', headers: { 'x-orrery-state-version': String(v + 1) } }), 412, 'version_conflict');
      // Conflicting preconditions are refused before anything is written.
      expectError(await call('PUT', '/v1/state/xv', { body: '2', headers: { 'x-orrery-state-version': String(v), 'if-match': String(v + 1) } }), 400, 'bad_request');
      expectError(await call('PUT', '/v1/state/xv', { body: '2', headers: { 'x-orrery-state-version': 'latest' } }), 400, 'bad_request');
      expect((await call('GET', '/v1/state/xv')).json).toEqual({ value: 1 });
      const v2 = (await call('PUT', '/v1/state/xv', { body: '2', headers: { 'x-orrery-state-version': String(v), 'if-match': `"${v}"` } })).json.version as number;
      expect(v2).toBeGreaterThan(v);
      expectError(await call('POST', '/v1/state/xv/cas', { body: JSON.stringify({ expectVersion: v2, value: 3 }), headers: { 'x-orrery-state-version': String(v) } }), 400, 'bad_request');
      expect((await call('POST', '/v1/state/xv/cas', { body: JSON.stringify({ expectVersion: v2, value: 3 }), headers: { 'x-orrery-state-version': String(v2) } })).status).toBe(200);
      expectError(await call('DELETE', '/v1/state/xv', { headers: { 'x-orrery-state-version': String(v2) } }), 412, 'version_conflict');
      expectError(await call('DELETE', '/v1/state/xv', { headers: { 'x-orrery-state-version': '5', 'if-match': '6' } }), 400, 'bad_request');
      const v3 = (await call('GET', '/v1/state/xv')).headers.get('x-orrery-state-version')!;
      expect((await call('DELETE', '/v1/state/xv', { headers: { 'x-orrery-state-version': v3 } })).json).toEqual({ deleted: true });
      expectError(await call('DELETE', '/v1/state/xv', { headers: { 'x-orrery-state-version': v3 } }), 412, 'version_conflict');
    });

    it('POST /cas: create-only, swap, conflict, malformed bodies', async () => {
      const c = await call('POST', '/v1/state/counter/cas', { body: JSON.stringify({ expectVersion: 0, value: 1 }) });
      expect(c.status).toBe(200);
      expectError(await call('POST', '/v1/state/counter/cas', { body: JSON.stringify({ expectVersion: 0, value: 1 }) }), 412, 'version_conflict');
      const s = await call('POST', '/v1/state/counter/cas', { body: JSON.stringify({ expectVersion: c.json.version, value: 2 }) });
      expect(s.json.version).toBeGreaterThan(c.json.version);
      expectError(await call('POST', '/v1/state/counter/cas', { body: JSON.stringify({ expectVersion: c.json.version, value: 3 }) }), 412, 'version_conflict');
      expect((await call('GET', '/v1/state/counter')).json).toEqual({ value: 2 });
      for (const body of ['{"value":1}', '{"expectVersion":-1,"value":1}', '{"expectVersion":1.5,"value":1}', '{"expectVersion":1}', '[1]', 'nope', '']) {
        expectError(await call('POST', '/v1/state/counter/cas', { body }), 400, 'bad_request');
      }
      // PUT to a key literally ending in /cas is a normal write.
      expect((await call('PUT', '/v1/state/counter/cas', { body: '5' })).status).toBe(200);
      expect((await call('GET', '/v1/state/counter%2Fcas')).json).toEqual({ value: 5 });
      await call('DELETE', '/v1/state/counter%2Fcas');
      await call('DELETE', '/v1/state/counter');
    });

    it('Idempotency-Key on PUT, CAS and DELETE: a repeat is replayed byte for byte, another request 422, a bad key 400', async () => {
      const o = { ks: 'other' };
      const key = (k: string, extra: Record<string, string> = {}) => ({ ...o, headers: { 'idempotency-key': k, ...extra } });
      const put = await call('PUT', '/v1/state/idem-1', { ...key('put-1'), body: '{"a":1}' });
      expect(put.status).toBe(200);
      expect(put.headers.get('idempotent-replayed')).toBeNull();
      // The draft's quoted form names the same key.
      const again = await call('PUT', '/v1/state/idem-1', { ...key('"put-1"'), body: '{"a":1}' });
      expect({ text: again.text, version: again.headers.get('x-orrery-state-version'), replayed: again.headers.get('idempotent-replayed') }).toEqual({
        text: put.text,
        version: put.headers.get('x-orrery-state-version'),
        replayed: 'true',
      });
      expectError(await call('PUT', '/v1/state/idem-1', { ...key('put-1'), body: '{"a":2}' }), 422, 'idempotency_mismatch');
      expectError(await call('PUT', '/v1/state/idem-1', { ...key('put-1', { 'x-orrery-state-ttl': '60' }), body: '{"a":1}' }), 422, 'idempotency_mismatch');
      expectError(await call('PUT', '/v1/state/idem-other', { ...key('put-1'), body: '{"a":1}' }), 422, 'idempotency_mismatch');
      // If-Match and X-Orrery-State-Version say the same thing: the same request.
      const v = String(put.json.version);
      const cond = await call('PUT', '/v1/state/idem-1', { ...key('put-2', { 'if-match': v }), body: '2' });
      expect(cond.status).toBe(200);
      expect((await call('PUT', '/v1/state/idem-1', { ...key('put-2', { 'x-orrery-state-version': v }), body: '2' })).headers.get('idempotent-replayed')).toBe('true');

      const cas = await call('POST', '/v1/state/idem-2/cas', { ...key('cas-1'), body: '{"expectVersion":0,"value":1}' });
      expect(cas.status).toBe(200);
      const casAgain = await call('POST', '/v1/state/idem-2/cas', { ...key('cas-1'), body: '{"expectVersion":0,"value":1}' });
      expect([casAgain.text, casAgain.headers.get('idempotent-replayed')]).toEqual([cas.text, 'true']);
      // A refused precondition is an outcome too: replayed as the same 412.
      const refused = await call('POST', '/v1/state/idem-2/cas', { ...key('cas-2'), body: '{"expectVersion":0,"value":2}' });
      expectError(refused, 412, 'version_conflict');
      const refusedAgain = await call('POST', '/v1/state/idem-2/cas', { ...key('cas-2'), body: '{"expectVersion":0,"value":2}' });
      expect([refusedAgain.status, refusedAgain.text, refusedAgain.headers.get('idempotent-replayed')]).toEqual([412, refused.text, 'true']);

      const del = await call('DELETE', '/v1/state/idem-2', key('del-1'));
      expect(del.json).toEqual({ deleted: true });
      const delAgain = await call('DELETE', '/v1/state/idem-2', key('del-1'));
      expect([delAgain.status, delAgain.text, delAgain.headers.get('idempotent-replayed')]).toEqual([200, del.text, 'true']);
      expectError(await call('DELETE', '/v1/state/idem-2', key('del-2')), 404, 'not_found');
      expect((await call('DELETE', '/v1/state/idem-2', key('del-2'))).headers.get('idempotent-replayed')).toBe('true');

      for (const bad of ['', '""', '"', 'a b', 'a"b', 'a\\b', 'x'.repeat(256), 'a\tb']) {
        const r = await call('PUT', '/v1/state/idem-3', { ...key(bad), body: '1' });
        expectError(r, 400, 'idempotency_key_invalid');
      }
      expect((await call('GET', '/v1/state/idem-3', o)).status).toBe(404); // nothing written
      expect((await call('PUT', '/v1/state/idem-3', { ...key('x'.repeat(255)), body: '1' })).status).toBe(200);
      // An outsider's request is refused before anything is stored: the owner's first use of the key writes.
      expectError(await call('PUT', '/v1/state/idem-4', { ...key('claimed-by-outsider'), token: 'f'.repeat(64), body: '{"evil":1}' }), 403, 'forbidden');
      const owner = await call('PUT', '/v1/state/idem-4', { ...key('claimed-by-outsider'), body: '{"good":1}' });
      expect([owner.status, owner.headers.get('idempotent-replayed')]).toEqual([200, null]);
      // Another keyspace has keys of its own.
      expect((await call('PUT', '/v1/state/idem-1', { ns: 'team-b', ks: 'cart', headers: { 'idempotency-key': 'put-1' }, body: '{"b":1}' })).headers.get('idempotent-replayed')).toBeNull();
      // X-Orrery-Idempotency-Retention is checked on every request with a key, 400 when malformed, and nothing is written.
      for (const bad of ['0', '-5', '+5', '1.5', '05', '5s', 'x', '12345678901', '']) {
        const r = await call('PUT', '/v1/state/idem-5', { ...key('ret-put', { 'x-orrery-idempotency-retention': bad }), body: '1' });
        expectError(r, 400, 'idempotency_retention_invalid');
        expect(r.json.error).toContain('X-Orrery-Idempotency-Retention');
      }
      expectError(await call('DELETE', '/v1/state/idem-1', key('ret-del', { 'x-orrery-idempotency-retention': '0' })), 400, 'idempotency_retention_invalid');
      expectError(await call('POST', '/v1/state/idem-5/cas', { ...key('ret-cas', { 'x-orrery-idempotency-retention': '1e3' }), body: '{"expectVersion":0,"value":1}' }), 400, 'idempotency_retention_invalid');
      expect((await call('GET', '/v1/state/idem-5', o)).status).toBe(404);
      expect((await call('PUT', '/v1/state/idem-5', { ...key('ret-put', { 'x-orrery-idempotency-retention': '9999999999' }), body: '1' })).status).toBe(200);
      // Without a key it names no outcome: ignored, as before.
      expect((await call('PUT', '/v1/state/idem-5', { ...o, headers: { 'x-orrery-idempotency-retention': 'nonsense' }, body: '2' })).status).toBe(200);
    });

    it('Idempotency-Key on GET records the answer: a repeat replays it byte for byte after the key changed; 404 recorded; mismatches 422; retention header', { timeout: 30_000 }, async () => {
      const o = { ks: 'other' };
      const key = (k: string, extra: Record<string, string> = {}) => ({ ...o, headers: { 'idempotency-key': k, ...extra } });
      await call('PUT', '/v1/state/rec-1', { ...o, body: '{"n":1}', headers: { 'x-orrery-state-ttl': '300' } });
      const first = await call('GET', '/v1/state/rec-1', key('inv-a.1'));
      expect(first.status).toBe(200);
      expect(first.json).toEqual({ value: { n: 1 } });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(Number(first.headers.get('x-orrery-state-ttl'))).toBeGreaterThan(290);
      const changed = await call('PUT', '/v1/state/rec-1', { ...o, body: '{"n":2}' });
      const again = await call('GET', '/v1/state/rec-1', key('"inv-a.1"'));
      expect({ status: again.status, text: again.text, version: again.headers.get('x-orrery-state-version'), replayed: again.headers.get('idempotent-replayed') }).toEqual({
        status: 200,
        text: first.text,
        version: first.headers.get('x-orrery-state-version'),
        replayed: 'true',
      });
      // The TTL header counts down to the recorded entry's deadline, not the key's (which has none now).
      expect(Number(again.headers.get('x-orrery-state-ttl'))).toBeGreaterThan(290);
      expect(Number(again.headers.get('x-orrery-state-ttl'))).toBeLessThanOrEqual(Number(first.headers.get('x-orrery-state-ttl')));
      // A GET without the header is the plain read, as always: the key as it is now, nothing replayed.
      const plainGet = await call('GET', '/v1/state/rec-1', o);
      expect({ text: plainGet.text, version: plainGet.headers.get('x-orrery-state-version'), ttl: plainGet.headers.get('x-orrery-state-ttl'), replayed: plainGet.headers.get('idempotent-replayed') }).toEqual({
        text: '{"value":{"n":2}}',
        version: String(changed.json.version),
        ttl: null,
        replayed: null,
      });
      // …also with a retention header but no key (ignored).
      expect((await call('GET', '/v1/state/rec-1', { ...o, headers: { 'x-orrery-idempotency-retention': 'nonsense' } })).json).toEqual({ value: { n: 2 } });

      // A 404 is recorded too, and replayed after the key was created.
      const missing = await call('GET', '/v1/state/rec-2', key('inv-a.2'));
      expectError(missing, 404, 'not_found');
      await call('PUT', '/v1/state/rec-2', { ...o, body: '"now here"' });
      const missingAgain = await call('GET', '/v1/state/rec-2', key('inv-a.2'));
      expect([missingAgain.status, missingAgain.text, missingAgain.headers.get('idempotent-replayed')]).toEqual([404, missing.text, 'true']);

      // One key, one request: another key, a write under a read's key, a read under a write's key.
      expectError(await call('GET', '/v1/state/rec-2', key('inv-a.1')), 422, 'idempotency_mismatch');
      expectError(await call('PUT', '/v1/state/rec-1', { ...key('inv-a.1'), body: '{"n":1}' }), 422, 'idempotency_mismatch');
      expect((await call('PUT', '/v1/state/rec-3', { ...key('inv-a.3'), body: '3' })).status).toBe(200);
      expectError(await call('GET', '/v1/state/rec-3', key('inv-a.3')), 422, 'idempotency_mismatch');
      expect((await call('GET', '/v1/state/rec-1', o)).json).toEqual({ value: { n: 2 } }); // nothing written

      // Bad headers: 400 with their own codes, nothing recorded.
      expectError(await call('GET', '/v1/state/rec-1', key('a b')), 400, 'idempotency_key_invalid');
      for (const bad of ['0', '-1', '1.5', '01', '10000000000']) {
        expectError(await call('GET', '/v1/state/rec-1', key('inv-b.1', { 'x-orrery-idempotency-retention': bad })), 400, 'idempotency_retention_invalid');
      }
      expect((await call('GET', '/v1/state/rec-1', key('inv-b.1'))).headers.get('idempotent-replayed')).toBeNull(); // the key was still free

      // X-Orrery-Idempotency-Retention: 1 keeps the record one second, not the keyspace's 24 h.
      const brief = await call('GET', '/v1/state/rec-1', key('inv-c.1', { 'x-orrery-idempotency-retention': '1' }));
      expect(brief.json).toEqual({ value: { n: 2 } });
      await call('PUT', '/v1/state/rec-1', { ...o, body: '{"n":3}' });
      expect((await call('GET', '/v1/state/rec-1', key('inv-c.1'))).json).toEqual({ value: { n: 2 } });
      await new Promise((r) => setTimeout(r, 1100));
      const later = await call('GET', '/v1/state/rec-1', key('inv-c.1', { 'x-orrery-idempotency-retention': '1' }));
      expect([later.json, later.headers.get('idempotent-replayed')]).toEqual([{ value: { n: 3 } }, null]);

      // A token for another keyspace reads nothing and records nothing there.
      expectError(await call('GET', '/v1/state/rec-1', { ...key('inv-d.1'), token: deriveStateToken(MASTER, 'default', 'cart') }), 403, 'forbidden');
      expect((await call('GET', '/v1/state/rec-1', key('inv-d.1'))).headers.get('idempotent-replayed')).toBeNull();
    });

    it('GET /v1/changes: a stream of StateChangeEvent from its start position; 410 changes_expired; 429 too_many_streams', async () => {
      const h = { authorization: `Bearer ${deriveStateToken(MASTER, 'team-b', 'cart')}`, 'x-orrery-state-namespace': 'team-b', 'x-orrery-state-keyspace': 'cart' };
      const ctrl = new AbortController();
      const res = await fetch(`${svc.url}/v1/changes?prefix=feed%2F`, { headers: h, signal: ctrl.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
      const frames: string[] = [];
      const reading = (async () => {
        const reader = res.body!.getReader();
        let buf = '';
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            buf += new TextDecoder().decode(value);
            let i: number;
            while ((i = buf.indexOf('\n\n')) >= 0) {
              frames.push(buf.slice(0, i));
              buf = buf.slice(i + 2);
            }
          }
        } catch {
          /* aborted below */
        }
      })();
      const put = await call('PUT', '/v1/state/feed%2F1', { ns: 'team-b', body: '{"n":1}' });
      await call('DELETE', '/v1/state/feed%2F1', { ns: 'team-b' });
      for (let i = 0; i < 100 && frames.filter((f) => f.includes('data: ')).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      // A second stream is allowed, a third (--changes-max-streams 2) is not.
      const second = new AbortController();
      expect((await fetch(`${svc.url}/v1/changes`, { headers: h, signal: second.signal })).status).toBe(200);
      expectError(await call('GET', '/v1/changes', { ns: 'team-b' }), 429, 'too_many_streams');
      second.abort();
      ctrl.abort();
      await reading;
      expect(frames[0]).toMatch(/^id: \d+$/);
      const start = Number(frames[0]!.slice(4));
      const events = frames.filter((f) => f.includes('data: ')).map((f) => ({ id: f.split('\n')[0], data: JSON.parse(f.split('\n')[1]!.slice(6)) }));
      for (const e of events) checkContract('GET', '/v1/changes', 200, e.data);
      expect(events).toEqual([
        { id: `id: ${start + 1}`, data: { seq: start + 1, key: 'feed/1', op: 'set', version: put.json.version, value: { n: 1 } } },
        { id: `id: ${start + 2}`, data: { seq: start + 2, key: 'feed/1', op: 'delete', version: put.json.version } },
      ]);
      expectError(await call('GET', '/v1/changes?since=999999999', { ns: 'team-b' }), 410, 'changes_expired');
      expectError(await call('GET', '/v1/changes?since=x', { ns: 'team-b' }), 400, 'bad_request');
      expectError(await call('GET', '/v1/changes', { ns: 'team-b', token: deriveStateToken(MASTER, 'default', 'cart') }), 403, 'forbidden');
      expectError(await call('GET', '/v1/changes', { ns: 'team-b', token: null }), 401, 'unauthorized');
    });

    it('list pages with prefix, cursor and limit', async () => {
      for (const k of ['p/a', 'p/b', 'p/c']) await call('PUT', `/v1/state/${encodeURIComponent(k)}`, { body: '0', ks: 'other' });
      const p1 = await call('GET', '/v1/state?prefix=p%2F&limit=2', { ks: 'other' });
      expect(p1.json.keys).toEqual(['p/a', 'p/b']);
      expect(p1.json.cursor).not.toBe('');
      const p2 = await call('GET', `/v1/state?prefix=p%2F&limit=2&cursor=${p1.json.cursor}`, { ks: 'other' });
      expect(p2.json).toEqual({ keys: ['p/c'], cursor: '' });
      expectError(await call('GET', '/v1/state?limit=0', { ks: 'other' }), 400, 'bad_request');
      expectError(await call('GET', '/v1/state?limit=x', { ks: 'other' }), 400, 'bad_request');
      expectError(await call('GET', '/v1/state?cursor=%21%21', { ks: 'other' }), 400, 'bad_request');
      expectError(await call('POST', '/v1/state', { ks: 'other' }), 400, 'bad_request');
    });

    it('authentication: 401 without credentials, 403 for wrong or tampered scope', async () => {
      expectError(await call('GET', '/v1/state/a', { token: null }), 401, 'unauthorized');
      expectError(await call('GET', '/v1/state/a', { headers: { authorization: 'Basic abc' } }), 401, 'unauthorized');
      expectError(await call('GET', '/v1/state/a', { ns: '' }), 401, 'unauthorized');
      expectError(await call('GET', '/v1/state/a', { ks: '' }), 401, 'unauthorized');
      expectError(await call('GET', '/v1/state/a', { token: 'f'.repeat(64) }), 403, 'forbidden');
      const cartToken = deriveStateToken(MASTER, 'default', 'cart');
      expectError(await call('GET', '/v1/state/a', { token: cartToken, ks: 'other' }), 403, 'forbidden');
      expectError(await call('GET', '/v1/state/a', { token: cartToken, ns: 'team-b' }), 403, 'forbidden');
      expectError(await call('GET', '/v1/state/a', { ks: 'Not_Valid' }), 403, 'forbidden');
      // A correctly derived token for an undeclared keyspace is still refused.
      expectError(await call('GET', '/v1/state/a', { ks: 'undeclared' }), 403, 'forbidden');
    });

    it('key rules: 1–512 bytes, no control characters, no leading #', async () => {
      for (const key of ['%23meta', '%00', 'a%0Ab', '%7F', '%C2%85', 'x'.repeat(513), '%E2%82', '%ZZ']) {
        expectError(await call('PUT', `/v1/state/${key}`, { body: '1' }), 400, 'bad_request');
      }
      expect((await call('PUT', `/v1/state/${'é'.repeat(256)}`, { body: '1' })).status).toBe(200);
      expectError(await call('PUT', `/v1/state/${'é'.repeat(256)}x`, { body: '1' }), 400, 'bad_request');
      expect((await call('DELETE', `/v1/state/${'é'.repeat(256)}`)).status).toBe(200);
      expectError(await call('PATCH', '/v1/state/a', { body: '1' }), 400, 'bad_request');
      expectError(await call('GET', '/v2/nothing'), 404, 'not_found');
    });

    it('bodies: JSON only; TTL header validated', async () => {
      expectError(await call('PUT', '/v1/state/b', { body: '' }), 400, 'bad_request');
      expectError(await call('PUT', '/v1/state/b', { body: '{"a":' }), 400, 'bad_request');
      expectError(await call('PUT', '/v1/state/b', { body: '1', headers: { 'x-orrery-state-ttl': '-1' } }), 400, 'bad_request');
      expectError(await call('PUT', '/v1/state/b', { body: '1', headers: { 'x-orrery-state-ttl': '1.5' } }), 400, 'bad_request');
    });

    it('413 quota_value_bytes by Content-Length and while streaming a chunked body', { timeout: 30_000 }, async () => {
      expectError(await call('PUT', '/v1/state/big', { body: JSON.stringify('x'.repeat(1000)) }), 413, 'quota_value_bytes');
      expect((await call('PUT', '/v1/state/big', { body: JSON.stringify('x'.repeat(998)) })).status).toBe(200);
      await call('DELETE', '/v1/state/big');
      // Chunked upload of ~5 MB: the answer arrives after the limit, long before the body ends.
      const u = new URL(svc.url);
      const result = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
        const r = request(
          {
            host: u.hostname,
            port: u.port,
            method: 'PUT',
            path: '/v1/state/stream',
            headers: {
              authorization: `Bearer ${deriveStateToken(MASTER, 'default', 'cart')}`,
              'x-orrery-state-namespace': 'default',
              'x-orrery-state-keyspace': 'cart',
              'transfer-encoding': 'chunked',
            },
          },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body, sent }));
            res.on('error', reject);
          },
        );
        r.on('error', () => {
          /* the server may close while we still write; the response already arrived */
        });
        let sent = 0;
        r.write('"');
        const chunk = 'y'.repeat(64 * 1024);
        const pump = () => {
          while (sent < 5_000_000) {
            sent += chunk.length;
            if (!r.write(chunk)) return void r.once('drain', pump);
          }
          r.end('"');
        };
        pump();
      });
      expect(result.status).toBe(413);
      expect(JSON.parse(result.body).code).toBe('quota_value_bytes');
      checkContract('PUT', '/v1/state/stream', result.status, JSON.parse(result.body));
      expectError(await call('GET', '/v1/state/stream'), 404, 'not_found');
    });

    it('429 quota_keys at maxKeys, and for the namespace byte budget', async () => {
      const keys = (await call('GET', '/v1/state')).json.keys as string[];
      for (const k of keys) await call('DELETE', `/v1/state/${encodeURIComponent(k)}`);
      for (let i = 0; i < 5; i++) expect((await call('PUT', `/v1/state/q${i}`, { body: '1' })).status).toBe(200);
      expectError(await call('PUT', '/v1/state/q5', { body: '1' }), 429, 'quota_keys');
      expectError(await call('POST', '/v1/state/q5/cas', { body: '{"expectVersion":0,"value":1}' }), 429, 'quota_keys');
      expect((await call('PUT', '/v1/state/q0', { body: '2' })).status).toBe(200);
      await call('DELETE', '/v1/state/q0');
      expect((await call('PUT', '/v1/state/q5', { body: '1' })).status).toBe(200);
      // Namespace "budget" shares 4500 bytes across keyspaces a and b.
      const v = JSON.stringify('z'.repeat(998));
      for (let i = 0; i < 4; i++) expect((await call('PUT', `/v1/state/n${i}`, { ns: 'budget', ks: i % 2 ? 'a' : 'b', body: v })).status).toBe(200);
      const over = await call('PUT', '/v1/state/n9', { ns: 'budget', ks: 'a', body: v });
      expectError(over, 429, 'quota_keys');
      expect(over.json.error).toMatch(/namespace byte budget/);
      // A recorded read keeps a copy of the value: no room for one is the same refusal, never an unrecorded answer.
      const read = { ns: 'budget', ks: 'b', headers: { 'idempotency-key': 'budget-read' } };
      const refused = await call('GET', '/v1/state/n0', read);
      expectError(refused, 429, 'quota_keys');
      expect(refused.json.error).toMatch(/namespace byte budget/);
      expectError(await call('GET', '/v1/state/n0', read), 429, 'quota_keys'); // nothing was stored
      expect((await call('GET', '/v1/state/n0', { ns: 'budget', ks: 'b' })).status).toBe(200); // a plain read is not recorded
    });

    it('admin reads: signed query only, expiry, no header scope', async () => {
      const now = Math.floor(Date.now() / 1000);
      const usagePath = signAdminUrl(MASTER, 'GET', '/v1/admin/usage?scope-namespace=budget&scope-keyspace=b', now + 60);
      const usage = (await plain(usagePath)).json;
      expect(usage).toEqual({ namespace: 'budget', keyspace: 'b', keys: 2, bytes: 2000, maxKeys: 10000, maxValueBytes: 262144, defaultTTL: '1h' });
      const nsPath = signAdminUrl(MASTER, 'GET', '/v1/admin/namespaces', now + 60);
      const all = (await plain(nsPath)).json;
      const budget = all.namespaces.find((n: any) => n.namespace === 'budget');
      expect(budget).toMatchObject({ keys: 4, bytes: 4000, byteBudget: 4500 });
      expect(budget.keyspaces.map((k: any) => k.keyspace)).toEqual(['a', 'b']);
      expect(all.namespaces.map((n: any) => n.namespace)).toEqual(['budget', 'default', 'team-b']);
      const r401 = await plain('/v1/admin/namespaces');
      expect(r401.status).toBe(401);
      expect(r401.json.code).toBe('unauthorized');
      const expired = signAdminUrl(MASTER, 'GET', '/v1/admin/namespaces', now - 1);
      expect((await plain(expired)).status).toBe(401);
      const tampered = usagePath.replace('scope-keyspace=b', 'scope-keyspace=a');
      expect((await plain(tampered)).status).toBe(401);
      const withHeader = await plain(usagePath, 'GET', { 'x-orrery-state-keyspace': 'a' });
      expect(withHeader.status).toBe(400);
      const undeclared = signAdminUrl(MASTER, 'GET', '/v1/admin/usage?scope-namespace=x&scope-keyspace=y', now + 60);
      expect((await plain(undeclared)).status).toBe(404);
    });

    it('admin keyspace deletion: signed DELETE removes every key of one keyspace, idempotently', async () => {
      const now = Math.floor(Date.now() / 1000);
      for (const k of ['a', 'b', 'c']) expect((await call('PUT', `/v1/state/${k}`, { ks: 'doomed', body: '1' })).status).toBe(200);
      expect((await call('PUT', '/v1/state/keep', { ks: 'other', body: '1' })).status).toBe(200);
      const del = (path: string, method = 'DELETE') => plain(path, method).then(({ status, json }) => ({ status, json }));

      const signed = signKeyspaceDeletionUrl(MASTER, 'default', 'doomed', now + 60);
      expect(await del(signed)).toEqual({ status: 200, json: { deleted: 3 } });
      expect((await call('GET', '/v1/state/a', { ks: 'doomed' })).status).toBe(404);
      expect((await call('GET', '/v1/state', { ks: 'doomed' })).json).toEqual({ keys: [], cursor: '' });
      const usage = (await plain(signAdminUrl(MASTER, 'GET', '/v1/admin/usage?scope-namespace=default&scope-keyspace=doomed', now + 60))).json;
      expect(usage).toMatchObject({ keys: 0, bytes: 0 });
      expect((await call('GET', '/v1/state/keep', { ks: 'other' })).status).toBe(200);
      expect(await del(signed)).toEqual({ status: 200, json: { deleted: 0 } });
      // The keyspace starts over empty; deleting a keyspace nobody declares is not an error.
      expect((await call('PUT', '/v1/state/again', { ks: 'doomed', body: '1' })).status).toBe(200);
      expect(await del(signKeyspaceDeletionUrl(MASTER, 'default', 'doomed', now + 60))).toEqual({ status: 200, json: { deleted: 1 } });
      expect(await del(signKeyspaceDeletionUrl(MASTER, 'nobody', 'declares-this', now + 60))).toEqual({ status: 200, json: { deleted: 0 } });

      const badSignature = signed.replace(/signature=([0-9a-f]{63})[0-9a-f]/, (_m, head: string) => `signature=${head}${signed.endsWith('0') ? '1' : '0'}`);
      expect(badSignature).not.toBe(signed);
      expectError(await del(badSignature), 401, 'unauthorized');
      expectError(await del(signed.replace('scope-keyspace=doomed', 'scope-keyspace=other')), 401, 'unauthorized');
      expectError(await del(signAdminUrl(MASTER, 'GET', '/v1/admin/keyspace?scope-namespace=default&scope-keyspace=other', now + 60)), 401, 'unauthorized');
      expectError(await del(signKeyspaceDeletionUrl(MASTER, 'default', 'other', now - 1)), 401, 'unauthorized');
      expectError(await del('/v1/admin/keyspace?scope-namespace=default&scope-keyspace=other'), 401, 'unauthorized');
      expectError(await del(signAdminUrl(MASTER, 'DELETE', '/v1/admin/keyspace?scope-namespace=default', now + 60)), 400, 'bad_request');
      expectError(await del(signAdminUrl(MASTER, 'DELETE', '/v1/admin/keyspace?scope-keyspace=other', now + 60)), 400, 'bad_request');
      expectError(await del(signAdminUrl(MASTER, 'DELETE', '/v1/admin/keyspace?scope-namespace=default&scope-keyspace=%23meta', now + 60)), 400, 'bad_request');
      expectError(await del(signed, 'GET'), 400, 'bad_request');
      expect((await call('GET', '/v1/state/keep', { ks: 'other' })).status).toBe(200);
    });

    it('TTL expiry is visible over HTTP', { timeout: 30_000 }, async () => {
      await call('PUT', '/v1/state/short', { body: '1', headers: { 'x-orrery-state-ttl': '1' } });
      const deadline = Date.now() + 20_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        status = (await call('GET', '/v1/state/short')).status;
      }
      expect(status).toBe(404);
    });

    it('admin hot keys: signed read of the keys the state calls above hit, per keyspace', async () => {
      for (let i = 0; i < 5; i++) await call('GET', '/v1/state/hot-one');
      const now = Math.floor(Date.now() / 1000);
      const r = await plain(signAdminUrl(MASTER, 'GET', '/v1/admin/hot-keys?scope-namespace=default&scope-keyspace=cart&limit=50', now + 60));
      expect(r.status).toBe(200);
      expect(r.json.keyspaces.map((k: any) => `${k.namespace}/${k.keyspace}`)).toEqual(['default/cart']);
      expect(r.json.keyspaces[0].keys.map((k: any) => k.key)).toContain('hot-one');
      const three = await plain(signAdminUrl(MASTER, 'GET', '/v1/admin/hot-keys?scope-namespace=default&scope-keyspace=cart&limit=3', now + 60));
      expect(three.json.keyspaces[0].keys).toHaveLength(3);
      expect((await plain('/v1/admin/hot-keys')).status).toBe(401);
      expect((await plain(signAdminUrl(MASTER, 'GET', '/v1/admin/hot-keys?limit=0', now + 60))).status).toBe(400);
    });

    it('fences: POST /v1/fences/{key}, X-Orrery-Fence on PUT, CAS and DELETE, 409 fenced, 400 fence_invalid', async () => {
      const first = await call('POST', '/v1/fences/fenced%2F1', { ks: 'other' });
      expect(first.status).toBe(200);
      expect(first.json).toEqual({ key: 'fenced/1', fence: expect.any(Number) });
      const old = first.json.fence as number;
      const put = await call('PUT', '/v1/state/fenced%2F1', { ks: 'other', body: '"a"', headers: { 'x-orrery-fence': String(old) } });
      expect(put.status).toBe(200);
      const newer = (await call('POST', '/v1/fences/fenced%2F1', { ks: 'other' })).json.fence as number;
      expect(newer).toBeGreaterThan(old);
      for (const [method, path, body, headers] of [
        ['PUT', '/v1/state/fenced%2F1', '"late"', {}],
        ['POST', '/v1/state/fenced%2F1/cas', JSON.stringify({ expectVersion: put.json.version, value: 'late' }), {}],
        ['DELETE', '/v1/state/fenced%2F1', undefined, {}],
        ['PUT', '/v1/state/fenced%2F1', '"late"', { 'idempotency-key': 'fence-late-1' }],
      ] as const) {
        const r = await call(method, path, { ks: 'other', body, headers: { ...headers, 'x-orrery-fence': String(old) } });
        expectError(r, 409, 'fenced');
        expect(r.json.fence).toBe(newer);
        expect(r.json.error).toContain('POST /v1/fences/');
      }
      expect((await call('GET', '/v1/state/fenced%2F1', { ks: 'other' })).json).toEqual({ value: 'a' });
      const cas = await call('POST', '/v1/state/fenced%2F1/cas', { ks: 'other', body: JSON.stringify({ expectVersion: put.json.version, value: 'b' }), headers: { 'x-orrery-fence': String(newer) } });
      expect(cas.status).toBe(200);
      expect((await call('DELETE', '/v1/state/fenced%2F1', { ks: 'other', headers: { 'x-orrery-fence': String(newer) } })).json).toEqual({ deleted: true });
      for (const bad of ['0', '-1', 'abc', '1.5', '9007199254740992', String(newer) + '0'.repeat(20)]) {
        expectError(await call('PUT', '/v1/state/fenced%2F1', { ks: 'other', body: '1', headers: { 'x-orrery-fence': bad } }), 400, 'fence_invalid');
      }
      expect((await call('GET', '/v1/state/fenced%2F1', { ks: 'other' })).status).toBe(404);
      expectError(await call('GET', '/v1/fences/fenced%2F1', { ks: 'other' }), 400, 'bad_request');
      expectError(await call('POST', '/v1/fences/%23meta', { ks: 'other' }), 400, 'bad_request');
      expectError(await call('POST', '/v1/fences/k', { token: null }), 401, 'unauthorized');
      expectError(await call('POST', '/v1/fences/k', { ks: 'other', token: deriveStateToken(MASTER, 'default', 'cart') }), 403, 'forbidden');
    });

    it('admin keyspace writes: feed window and newest changes without values, idempotency outcomes, fences and this replica\'s counts', async () => {
      const ks = 'ledger';
      const a = (await call('POST', '/v1/fences/a', { ks })).json.fence as number;
      const b = (await call('POST', '/v1/fences/b', { ks })).json.fence as number;
      await call('PUT', '/v1/state/a', { ks, body: '"secret-a"', headers: { 'x-orrery-fence': String(a) } });
      const a2 = (await call('POST', '/v1/fences/a', { ks })).json.fence as number;
      expectError(await call('PUT', '/v1/state/a', { ks, body: '"late"', headers: { 'x-orrery-fence': String(a) } }), 409, 'fenced');
      const once = { ks, body: '"secret-i"', headers: { 'idempotency-key': 'ledger-1' } };
      expect((await call('PUT', '/v1/state/i', once)).status).toBe(200);
      expect((await call('PUT', '/v1/state/i', once)).headers.get('idempotent-replayed')).toBe('true');
      expectError(await call('PUT', '/v1/state/i', { ...once, body: '"other"' }), 422, 'idempotency_mismatch');
      expect((await call('DELETE', '/v1/state/i', { ks })).status).toBe(200);
      const now = Math.floor(Date.now() / 1000);
      const r = await plain(signAdminUrl(MASTER, 'GET', `/v1/admin/keyspace-writes?scope-namespace=default&scope-keyspace=${ks}`, now + 60));
      expect(r.status).toBe(200);
      expect(r.json.changes).toMatchObject({ low: 0, head: 3, openStreams: 0, retentionMs: 600_000, retentionEvents: 10_000 });
      expect(r.json.changes.recent.map((c: any) => [c.seq, c.key, c.op])).toEqual([
        [3, 'i', 'delete'],
        [2, 'i', 'set'],
        [1, 'a', 'set'],
      ]);
      expect(r.text).not.toContain('secret');
      expect(r.json.changes.oldestAt).toBe(r.json.changes.recent[2].at);
      expect(r.json.idempotency).toMatchObject({ records: 1, retentionMs: 7_200_000, replayed: 1, mismatched: 1 });
      expect(r.json.idempotency.bytes).toBeGreaterThan(0);
      expect(r.json.fences).toEqual({ keys: 2, newest: [{ key: 'a', fence: a2 }, { key: 'b', fence: b }], claimed: 3, refused: 1 });
      const one = await plain(signAdminUrl(MASTER, 'GET', `/v1/admin/keyspace-writes?scope-namespace=default&scope-keyspace=${ks}&limit=1`, now + 60));
      expect(one.json.changes.recent.map((c: any) => c.seq)).toEqual([3]);
      expect(one.json.fences.newest).toEqual([{ key: 'a', fence: a2 }]);
      // Another keyspace's counts stay apart.
      const cart = await plain(signAdminUrl(MASTER, 'GET', '/v1/admin/keyspace-writes?scope-namespace=default&scope-keyspace=doomed', now + 60));
      expect(cart.json.fences).toMatchObject({ claimed: 0, refused: 0 });
      expectError(await plain('/v1/admin/keyspace-writes?scope-namespace=default&scope-keyspace=ledger'), 401, 'unauthorized');
      expectError(await plain(signAdminUrl(MASTER, 'GET', '/v1/admin/keyspace-writes?scope-namespace=default&scope-keyspace=nope', now + 60)), 404, 'not_found');
      for (const q of ['scope-namespace=default', 'scope-namespace=default&scope-keyspace=ledger&limit=0', 'scope-namespace=default&scope-keyspace=ledger&limit=101', 'scope-namespace=Bad_&scope-keyspace=ledger']) {
        expectError(await plain(signAdminUrl(MASTER, 'GET', `/v1/admin/keyspace-writes?${q}`, now + 60)), 400, 'bad_request');
      }
    });

    it('healthz, readyz and metrics bypass auth', async () => {
      expect((await plain('/healthz')).status).toBe(200);
      expect((await plain('/readyz')).status).toBe(200);
      const m = (await plain('/metrics')).text;
      expect(m).toMatch(/orrery_statestore_ops_total\{op="get",result="ok"\} \d+/);
      expect(m).toMatch(/orrery_statestore_ops_total\{op="set",result="quota_keys"\} \d+/);
      expect(m).toMatch(/orrery_statestore_quota_rejections_total\{kind="keys"\} \d+/);
      expect(m).toMatch(/orrery_statestore_quota_rejections_total\{kind="namespace_bytes"\} \d+/);
      expect(m).toMatch(/orrery_statestore_quota_rejections_total\{kind="value_bytes"\} \d+/);
      expect(m).toMatch(/orrery_statesvc_request_duration_seconds_bucket/);
      expect(m).toMatch(/orrery_statestore_idempotent_replays_total\{op="get"\} [1-9]/);
    });

    it('every route answered as the wire contract says, and every error code was seen', () => {
      // Each answer above was parsed with its route's schema (or the error body) as it arrived;
      // this makes sure none of the routes or codes went unchecked. A dead database (503) and a
      // bug (500) are not provoked here: server-errors.test.ts covers those answers.
      const notProvoked = new Set(['capability_unavailable', 'internal']);
      for (const r of STATESVC_HTTP_API.routes) {
        for (const status of Object.keys(r.responses)) expect([...exercised], 'a success answer').toContain(`${r.method} ${r.path} ${status}`);
      }
      const codes = new Set([...exercised].map((e) => e.split(' ').at(-1)!));
      for (const code of Object.keys(STATESVC_HTTP_API.errorCodes)) if (!notProvoked.has(code)) expect([...codes], 'an error code').toContain(code);
    });
  });
}
