/**
 * S1 (a token for keyspace A never touches keyspace B) as a property over HTTP, and fuzzed
 * keys, headers and bodies that must never produce a 5xx or take the process down.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x33);
const SCOPES = ['n1', 'n2'].flatMap((namespace) => ['k1', 'k2', 'k3'].map((keyspace) => ({ namespace, keyspace })));

describe('statesvc isolation and fuzzing (real process, memory driver)', () => {
  let dir: string;
  let svc: StatesvcProcess;

  const call = (method: string, path: string, token: string, ns: string, ks: string, body?: string, extra: Record<string, string> = {}) =>
    fetch(svc.url + path, {
      method,
      body,
      headers: { authorization: `Bearer ${token}`, 'x-orrery-state-namespace': ns, 'x-orrery-state-keyspace': ks, ...extra },
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-iso-'));
    writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
    writeFileSync(join(dir, 'keyspaces.yaml'), SCOPES.map((s) => `- {namespace: ${s.namespace}, keyspace: ${s.keyspace}, maxKeys: 50, maxValueBytes: 4096}`).join('\n'));
    svc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
    for (const s of SCOPES) {
      const r = await call('PUT', '/v1/state/sentinel', deriveStateToken(MASTER, s.namespace, s.keyspace), s.namespace, s.keyspace, JSON.stringify(`${s.namespace}/${s.keyspace}`));
      expect(r.status).toBe(200);
    }
  }, 90_000);

  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a token for keyspace A never reads, writes, lists or deletes in keyspace B', { timeout: 90_000 }, async () => {
    const scopeArb = fc.constantFrom(...SCOPES);
    await fc.assert(
      fc.asyncProperty(
        scopeArb,
        // The claimed scope: another declared one, or A's namespace/keyspace mixed with B's.
        scopeArb,
        fc.constantFrom('both', 'namespace', 'keyspace'),
        fc.constantFrom('GET', 'PUT', 'DELETE', 'CAS', 'LIST'),
        fc.constantFrom('sentinel', 'x', 'y'),
        async (a, b, tamper, op, key) => {
          const claimed = tamper === 'both' ? b : tamper === 'namespace' ? { ...a, namespace: b.namespace } : { ...a, keyspace: b.keyspace };
          fc.pre(claimed.namespace !== a.namespace || claimed.keyspace !== a.keyspace);
          const token = deriveStateToken(MASTER, a.namespace, a.keyspace);
          const path = op === 'LIST' ? '/v1/state' : op === 'CAS' ? `/v1/state/${key}/cas` : `/v1/state/${key}`;
          const method = op === 'LIST' ? 'GET' : op === 'CAS' ? 'POST' : op;
          const body = op === 'PUT' ? '"stolen"' : op === 'CAS' ? '{"expectVersion":0,"value":"stolen"}' : undefined;
          const r = await call(method, path, token, claimed.namespace, claimed.keyspace, body);
          expect(r.status).toBe(403);
          expect((await r.json()).code).toBe('forbidden');
        },
      ),
      { numRuns: 150 },
    );
    // Every keyspace still holds exactly its own sentinel and nothing else.
    for (const s of SCOPES) {
      const token = deriveStateToken(MASTER, s.namespace, s.keyspace);
      expect(await call('GET', '/v1/state/sentinel', token, s.namespace, s.keyspace).then((r) => r.json())).toEqual({ value: `${s.namespace}/${s.keyspace}` });
      expect(await call('GET', '/v1/state', token, s.namespace, s.keyspace).then((r) => r.json())).toEqual({ keys: ['sentinel'], cursor: '' });
    }
  });

  it('fuzzed keys, headers and bodies never produce a 5xx', { timeout: 90_000 }, async () => {
    const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
    const pathChar = fc.oneof(
      fc.constantFrom('%', '%2F', '%00', '%23', '#', '/', '?', '&', '=', '%ZZ', '%C3', '%C3%A9', '..', '~', 'cas', '%F4%8F%BF%BF'),
      fc.string({ minLength: 1, maxLength: 3 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 2 }),
    );
    const requestArb = fc.record({
      method: fc.constantFrom('GET', 'PUT', 'DELETE', 'POST', 'PATCH', 'HEAD', 'OPTIONS'),
      base: fc.constantFrom('/v1/state/', '/v1/state', '/v1/admin/', '/v1/admin/usage?', '/', '/v1/state?'),
      path: fc.array(pathChar, { maxLength: 12 }).map((a) => a.join('')),
      suffix: fc.constantFrom('', '/cas', '?limit=5', '?cursor=abc', '?prefix=%FF'),
      token: fc.oneof(fc.constant('valid'), printable),
      ns: fc.oneof(fc.constant('n1'), printable),
      ks: fc.oneof(fc.constant('k1'), printable),
      ifMatch: fc.option(printable),
      ttl: fc.option(fc.oneof(printable, fc.integer().map(String))),
      body: fc.option(fc.oneof(fc.json(), fc.string(), fc.jsonValue().map((v) => JSON.stringify({ expectVersion: 0, value: v })), fc.string().map((s) => `{"expectVersion":${s},"value":1}`))),
    });
    await fc.assert(
      fc.asyncProperty(requestArb, async (q) => {
        let url: string;
        try {
          url = new URL(svc.url + q.base + q.path + q.suffix).toString();
        } catch {
          return;
        }
        const headers: Record<string, string> = {
          authorization: `Bearer ${q.token === 'valid' ? deriveStateToken(MASTER, 'n1', 'k1') : q.token}`,
          'x-orrery-state-namespace': q.ns,
          'x-orrery-state-keyspace': q.ks,
        };
        if (q.ifMatch !== null) headers['if-match'] = q.ifMatch;
        if (q.ttl !== null) headers['x-orrery-state-ttl'] = q.ttl;
        const hasBody = q.body !== null && q.method !== 'GET' && q.method !== 'HEAD';
        const r = await fetch(url, { method: q.method, headers, body: hasBody ? q.body : undefined });
        await r.arrayBuffer();
        expect(r.status, `${q.method} ${url}`).toBeLessThan(500);
      }),
      { numRuns: 400 },
    );
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    expect(svc.proc.exitCode).toBeNull();
    expect(svc.stderr()).not.toMatch(/internal error/);
  });
});
