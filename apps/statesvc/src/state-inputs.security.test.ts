/**
 * Issue 20 item 9 against the real `orrery-statesvc`, on every driver (memory, postgres on the
 * test server, postgres on embedded PGlite): NUL, control characters and oversized values in the
 * list prefix and cursor, the key, and headers are refused with 400 `bad_request` — never a 5xx,
 * and never with SQL or driver text in the answer (before: 503 echoing the query and its
 * parameters on PGlite and Postgres).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x42);
const TOKEN = deriveStateToken(MASTER, 'default', 'cart');
const SCOPE = { authorization: `Bearer ${TOKEN}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' };

/** Words of SQL, of the drivers and of the database that must never appear in an answer. */
const LEAKS = /select|state_entries|params|failed query|pglite|postgres|drizzle|syntax|invalid byte sequence|0x00|orrery_state_(set|delete|lock)|journal|ECONN|\/tmp\//i;

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

const BAD_PREFIXES = ['%00', 'a%00b', '%01', '%09', '%0A', '%0D%0A', '%1B', '%7F', '%C2%80', '%C2%85', '%C2%9F', '%F4%8F%BF%BF', '%23', '%23meta', 'x'.repeat(513), '%C3%A9'.repeat(257)];
const BAD_CURSORS = ['AA', 'AAAA', b64('a\u0000b'), b64('\u0001'), b64('\u007f'), b64(Buffer.from([0xff, 0xfe])), b64('#meta'), b64('x'.repeat(600)), 'YR', '!!', '%00', 'x'.repeat(2000)];
const BAD_KEYS = ['%00', 'a%00', '%00a', '%01', '%0A', '%0D%0A', '%1F', '%7F', '%C2%85', '%23meta', 'x'.repeat(513), '%E2%82%AC'.repeat(171), '%ZZ', '%ED%A0%80', '%F4%8F%BF%BF'];

/** One request as raw bytes: what fetch refuses to send (NUL or CR in a header, a huge head). */
function rawRequest(url: string, text: string | Buffer): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('error', reject);
    s.on('close', () => {
      const all = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(all.slice(9, 12)), text: all });
    });
    s.write(text);
    setTimeout(() => s.end(), 300);
  });
}

const drivers: Array<{ name: string; args: (dir: string) => Promise<{ args: string[]; cleanup: () => Promise<void> }> }> = [
  { name: 'memory', args: async () => ({ args: ['--driver', 'memory'], cleanup: async () => {} }) },
  {
    name: 'postgres',
    args: async () => {
      const db = await createTestDatabase();
      return { args: ['--driver', 'postgres', '--database-url', db.url], cleanup: () => db.drop() };
    },
  },
  // No --database-url: the postgres driver on embedded PGlite (in memory).
  { name: 'pglite', args: async () => ({ args: ['--driver', 'postgres'], cleanup: async () => {} }) },
];

for (const driver of drivers) {
  describe(`statesvc input validation (${driver.name})`, () => {
    let dir: string;
    let svc: StatesvcProcess;
    let cleanup = async () => {};

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-sec-'));
      writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
      writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: cart, maxKeys: 100, maxValueBytes: 4096}\n');
      const d = await driver.args(dir);
      cleanup = d.cleanup;
      svc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), ...d.args]);
      for (const k of ['a', 'a/1', 'b']) expect((await fetch(`${svc.url}/v1/state/${encodeURIComponent(k)}`, { method: 'PUT', headers: SCOPE, body: '1' })).status).toBe(200);
    }, 120_000);

    afterAll(async () => {
      await svc?.stop();
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    async function expectRefused(path: string, init: RequestInit = {}, status = 400, code = 'bad_request'): Promise<void> {
      const r = await fetch(svc.url + path, { ...init, headers: { ...SCOPE, ...(init.headers as Record<string, string>) } });
      const text = await r.text();
      const headers = JSON.stringify([...r.headers]);
      expect({ path, status: r.status }).toEqual({ path, status });
      expect(JSON.parse(text), path).toMatchObject({ code });
      expect(text + headers, path).not.toMatch(LEAKS);
    }

    it('list prefix with NUL, control characters, a leading # or over 512 bytes → 400 bad_request, no SQL', { timeout: 60_000 }, async () => {
      for (const p of BAD_PREFIXES) await expectRefused(`/v1/state?prefix=${p}`);
      // and valid prefixes still list
      const ok = await fetch(`${svc.url}/v1/state?prefix=a`, { headers: SCOPE });
      expect(await ok.json()).toEqual({ keys: ['a', 'a/1'], cursor: '' });
      expect(await (await fetch(`${svc.url}/v1/state?prefix=`, { headers: SCOPE })).json()).toEqual({ keys: ['a', 'a/1', 'b'], cursor: '' });
    });

    it('list cursor that this service did not hand out (NUL, invalid UTF-8, too long, not canonical) → 400 bad_request, no SQL', { timeout: 60_000 }, async () => {
      for (const c of BAD_CURSORS) await expectRefused(`/v1/state?cursor=${c}`);
      for (const c of BAD_CURSORS.slice(0, 4)) await expectRefused(`/v1/state?prefix=a&cursor=${c}&limit=1`);
      // a real cursor still pages
      const first = (await (await fetch(`${svc.url}/v1/state?limit=1`, { headers: SCOPE })).json()) as { keys: string[]; cursor: string };
      expect(first.keys).toEqual(['a']);
      const second = (await (await fetch(`${svc.url}/v1/state?limit=1&cursor=${first.cursor}`, { headers: SCOPE })).json()) as { keys: string[] };
      expect(second.keys).toEqual(['a/1']);
    });

    it('keys with NUL, control characters, bad encodings or over 512 bytes → 400 bad_request on every route', { timeout: 60_000 }, async () => {
      for (const k of BAD_KEYS) {
        await expectRefused(`/v1/state/${k}`);
        await expectRefused(`/v1/state/${k}`, { method: 'PUT', body: '1' });
        await expectRefused(`/v1/state/${k}`, { method: 'DELETE' });
        await expectRefused(`/v1/state/${k}/cas`, { method: 'POST', body: '{"expectVersion":0,"value":1}' });
      }
    });

    it('oversized or malformed If-Match / TTL values → 400; a JSON value holding an escaped NUL is just a value', { timeout: 60_000 }, async () => {
      for (const h of [{ 'if-match': '9'.repeat(5000) }, { 'if-match': '1\t2' }, { 'x-orrery-state-ttl': '1'.repeat(5000) }, { 'x-orrery-state-ttl': '-1' }] as Array<Record<string, string>>) {
        await expectRefused('/v1/state/a', { method: 'PUT', body: '2', headers: h });
      }
      await expectRefused('/v1/state/a', { method: 'DELETE', headers: { 'if-match': `"${'1'.repeat(4000)}"` } });
      await expectRefused('/v1/state/a', { method: 'PUT', body: '"a\u0000b"' }); // a raw NUL is not JSON
      const put = await fetch(`${svc.url}/v1/state/nul`, { method: 'PUT', headers: SCOPE, body: JSON.stringify('a\u0000b') });
      expect(put.status).toBe(200);
      expect(await (await fetch(`${svc.url}/v1/state/nul`, { headers: SCOPE })).json()).toEqual({ value: 'a\u0000b' });
      const cas = await fetch(`${svc.url}/v1/state/nul2/cas`, { method: 'POST', headers: SCOPE, body: JSON.stringify({ expectVersion: 0, value: '\u0000\u0001' }) });
      expect(cas.status).toBe(200);
    });

    it('NUL or control characters in header lines, and heads over the limit → 400, on a raw socket', { timeout: 60_000 }, async () => {
      const head = (extra: string) => `GET /v1/state?prefix=a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nX-Orrery-State-Namespace: default\r\nX-Orrery-State-Keyspace: cart\r\n${extra}Connection: close\r\n\r\n`;
      for (const extra of ['X-Orrery-State-TTL: 1\u00002\r\n', 'If-Match: 1\u0001\r\n', 'X-Orrery-State-Namespace: def\u0000ault\r\n', 'X-A: b\rc\r\n', `X-Big: ${'a'.repeat(20_000)}\r\n`]) {
        const r = await rawRequest(svc.url, Buffer.from(head(extra), 'latin1'));
        expect(r.status, JSON.stringify(extra.slice(0, 40))).toBe(400);
        expect(r.text).toContain('"code":"bad_request"');
        expect(r.text).not.toMatch(LEAKS);
      }
      // The same head without the bad line is served.
      expect((await rawRequest(svc.url, head(''))).status).toBe(200);
    });

    it('scope headers that are not a namespace/keyspace are refused (4xx) without reaching the driver', { timeout: 60_000 }, async () => {
      for (const [ns, ks] of [
        ['x'.repeat(5000), 'cart'],
        ['default', 'c'.repeat(5000)],
        ['de fault', 'cart'],
        ['default', 'cart#meta'],
        ['default:x', 'cart'],
      ]) {
        const r = await fetch(`${svc.url}/v1/state?prefix=%00`, { headers: { ...SCOPE, 'x-orrery-state-namespace': ns!, 'x-orrery-state-keyspace': ks! } });
        const text = await r.text();
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(text).not.toMatch(LEAKS);
      }
    });

    it('is still alive and ready, and its metrics carry no driver text', async () => {
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${svc.url}/metrics`)).text();
      expect(metrics).toMatch(/orrery_statestore_ops_total\{op="list",result="bad_request"\}/);
      expect(metrics).not.toMatch(/result="(capability_unavailable|internal)"/);
      expect(svc.proc.exitCode).toBeNull();
    });
  });
}
