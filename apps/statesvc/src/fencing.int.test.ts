/**
 * Fencing over HTTP (docs/state.md "Fencing") against the real process, on both drivers: what an
 * outsider can and cannot do with `POST /v1/fences/{key}` and `X-Orrery-Fence`, idempotent
 * replays across a re-claim, and on Postgres two statesvc replicas on one database.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { scopedStateCall, type ScopedCall } from './scoped-state-call.ts';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x4f);
const KEYSPACES = `
- {namespace: default, keyspace: owner}
- {namespace: default, keyspace: intruder}
- {namespace: team-b, keyspace: owner}
`;


for (const driver of ['memory', 'postgres'] as const) {
  describe(`statesvc fencing (${driver} driver)`, () => {
    let dir: string;
    let a: StatesvcProcess;
    /** A second replica on the same database (Postgres); the same process on memory. */
    let b: StatesvcProcess;
    let dropDb = async () => {};

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-fence-'));
      writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
      writeFileSync(join(dir, 'keyspaces.yaml'), KEYSPACES);
      const args = ['--driver', driver, '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')];
      if (driver === 'postgres') {
        const tdb = await createTestDatabase();
        dropDb = () => tdb.drop();
        args.push('--database-url', tdb.url);
        [a, b] = await Promise.all([spawnStatesvc(args), spawnStatesvc(args)]);
      } else {
        a = await spawnStatesvc(args);
        b = a;
      }
    }, 90_000);

    afterAll(async () => {
      await a?.stop();
      if (b !== a) await b?.stop();
      await dropDb();
      rmSync(dir, { recursive: true, force: true });
    });

    const call = (svc: StatesvcProcess, method: string, path: string, c: ScopedCall = {}) => scopedStateCall(svc.url, MASTER, { ns: 'default', ks: 'owner' }, method, path, c);
    const claim = async (svc: StatesvcProcess, key: string, c: ScopedCall = {}) => {
      const r = await call(svc, 'POST', `/v1/fences/${encodeURIComponent(key)}`, c);
      expect(r.status, r.text).toBe(200);
      return r.json.fence as number;
    };
    const put = (svc: StatesvcProcess, key: string, value: unknown, fence: number | string, c: ScopedCall = {}) =>
      call(svc, 'PUT', `/v1/state/${encodeURIComponent(key)}`, { ...c, body: JSON.stringify(value), headers: { ...c.headers, 'x-orrery-fence': String(fence) } });

    it('an outsider cannot claim or write: no token, a token for another keyspace or namespace, tampered scope headers', async () => {
      const f = await claim(a, 'acct');
      expect((await put(a, 'acct', 1, f)).status).toBe(200);
      // No token, a wrong token, another keyspace's token with this keyspace's headers: no claim.
      expect((await call(a, 'POST', '/v1/fences/acct', { token: null })).json.code).toBe('unauthorized');
      expect((await call(a, 'POST', '/v1/fences/acct', { token: 'x'.repeat(64) })).json.code).toBe('forbidden');
      expect((await call(a, 'POST', '/v1/fences/acct', { token: deriveStateToken(MASTER, 'default', 'intruder') })).json.code).toBe('forbidden');
      expect((await call(a, 'POST', '/v1/fences/acct', { token: deriveStateToken(MASTER, 'team-b', 'owner') })).json.code).toBe('forbidden');
      // The intruder's own claim of the same key name is its own keyspace's: the owner's fence stays current.
      const intruderFence = await claim(a, 'acct', { ks: 'intruder' });
      expect(intruderFence).toBeGreaterThan(f);
      const otherNs = await claim(a, 'acct', { ns: 'team-b' });
      expect((await put(a, 'acct', 2, f)).status).toBe(200);
      // Nor can a fence from elsewhere write here (never issued for this key).
      for (const foreign of [intruderFence, otherNs]) {
        const r = await put(a, 'acct', 'stolen', foreign);
        expect({ status: r.status, code: r.json.code, fence: r.json.fence }).toEqual({ status: 409, code: 'fenced', fence: f });
      }
      expect((await call(a, 'GET', '/v1/state/acct')).json).toEqual({ value: 2 });
    });

    it('bad fences are 400 fence_invalid and write nothing: huge, negative, zero, fractional, non-numeric, repeated', async () => {
      const f = await claim(a, 'bad');
      await put(a, 'bad', 'kept', f);
      const huge = '9'.repeat(10_000);
      for (const bad of [huge, '18446744073709551616', '-5', '0', '00', '3.0', '1e9', 'abc', `${f} ${f}`, `${f},${f}`]) {
        const r = await put(a, 'bad', 'x', bad);
        expect({ bad: bad.slice(0, 30), status: r.status, code: r.json?.code }).toEqual({ bad: bad.slice(0, 30), status: 400, code: 'fence_invalid' });
        expect(r.text).not.toContain(huge.slice(0, 100));
      }
      // Raw duplicate header lines (fetch would join them): statesvc sees an array or a joined value, refused either way.
      const dup = await new Promise<number>((resolve, reject) => {
        const url = new URL(a.url);
        const token = deriveStateToken(MASTER, 'default', 'owner');
        import('node:net').then(({ connect }) => {
          const sock = connect(Number(url.port), url.hostname, () => {
            sock.write(
              `PUT /v1/state/bad HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\nx-orrery-state-namespace: default\r\nx-orrery-state-keyspace: owner\r\n` +
                `x-orrery-fence: ${f}\r\nx-orrery-fence: ${f}\r\ncontent-length: 3\r\nconnection: close\r\n\r\n"x"`,
            );
          });
          let out = '';
          sock.on('data', (d) => (out += d.toString()));
          sock.on('end', () => resolve(Number(out.slice(9, 12))));
          sock.on('error', reject);
        }, reject);
      });
      expect(dup).toBe(400);
      expect((await call(a, 'GET', '/v1/state/bad')).json).toEqual({ value: 'kept' });
      // Keys follow the key rules on the claim route too.
      expect((await call(a, 'POST', '/v1/fences/')).status).toBe(400);
      expect((await call(a, 'POST', `/v1/fences/${'k'.repeat(513)}`)).status).toBe(400);
      expect((await call(a, 'POST', '/v1/fences/a%00b')).status).toBe(400);
    });

    it('an idempotent retry of a write that landed is replayed after the key was claimed again; a fenced one is not stored', async () => {
      const f1 = await claim(a, 'pay');
      const first = await put(a, 'pay', { n: 1 }, f1, { headers: { 'idempotency-key': 'pay-1' } });
      expect(first.status).toBe(200);
      const f2 = await claim(b, 'pay');
      const retry = await put(a, 'pay', { n: 1 }, f1, { headers: { 'idempotency-key': 'pay-1' } });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
      const late = await put(a, 'pay', { n: 2 }, f1, { headers: { 'idempotency-key': 'pay-2' } });
      expect({ status: late.status, code: late.json.code, fence: late.json.fence }).toEqual({ status: 409, code: 'fenced', fence: f2 });
      // Not stored: the same key with the current fence writes.
      const now = await put(b, 'pay', { n: 2 }, f2, { headers: { 'idempotency-key': 'pay-2' } });
      expect(now.status).toBe(200);
      expect(now.headers.get('idempotent-replayed')).toBeNull();
      expect((await call(a, 'GET', '/v1/state/pay')).json).toEqual({ value: { n: 2 } });
    });

    it('concurrent claims through both replicas are distinct; only the last claimant writes, through either replica', async () => {
      const svcs = [a, b];
      const fences = await Promise.all(Array.from({ length: 12 }, (_, i) => claim(svcs[i % 2]!, 'hot')));
      expect(new Set(fences).size).toBe(12);
      const last = Math.max(...fences);
      const answers = await Promise.all(fences.map((f, i) => put(svcs[(i + 1) % 2]!, 'hot', f, f)));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect(answers.filter((r) => r.status === 409 && r.json.fence === last)).toHaveLength(11);
      expect((await call(a, 'GET', '/v1/state/hot')).json).toEqual({ value: last });
      const m = await (await fetch(`${a.url}/metrics`)).text();
      expect(m).toMatch(/orrery_statestore_ops_total\{op="fence",result="ok"\} \d+/);
      expect(m).toMatch(/orrery_statestore_ops_total\{op="set",result="fenced"\} \d+/);
    });
  });
}
