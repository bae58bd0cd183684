import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialFromClaims, credentialFromEnv, readRegistryCredentialFile, RegistryCredentialError } from './registry-credential.ts';
import { Registrar } from './registrar.ts';

const token = 'ab'.repeat(32);
const scope = { namespace: 'shop', function: 'counter', revision: 'counter-00001' };
const service = 'orrery.functions.shop.counter.counter-00001';

describe('registration credential', () => {
  it('takes claims for exactly this revision and returns the bare credential', () => {
    expect(credentialFromClaims({ namespace: 'shop', service, token }, scope, 'x')).toBe(token);
  });

  it("refuses another revision's, another namespace's, and malformed claims, never echoing the token", () => {
    const bad = [
      { namespace: 'shop', service: 'orrery.functions.shop.counter.counter-00002', token },
      { namespace: 'other', service, token },
      { namespace: 'shop', service, token: 'AB'.repeat(32) },
      { namespace: 'shop', service },
      'just-a-string',
      null,
    ];
    for (const claims of bad) {
      let err: unknown;
      try {
        credentialFromClaims(claims, scope, 'registryCredential');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RegistryCredentialError);
      expect((err as Error).message).not.toContain(token);
    }
  });

  it('from the environment: 64 lowercase hex digits', () => {
    expect(credentialFromEnv(`${token}\n`)).toBe(token);
    expect(() => credentialFromEnv('nope')).toThrow(/64 lowercase hex/);
  });

  it('reads the mounted file and checks its claims', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reg-cred-'));
    const good = join(dir, 'good');
    writeFileSync(good, JSON.stringify({ namespace: 'shop', service, token }));
    expect(await readRegistryCredentialFile(good, scope)).toBe(token);
    const other = join(dir, 'other');
    writeFileSync(other, JSON.stringify({ namespace: 'shop', service: 'orrery.functions.shop.cart.cart-00001', token }));
    await expect(readRegistryCredentialFile(other, scope)).rejects.toThrow(/is for shop\/orrery.functions.shop.cart.cart-00001/);
    await expect(readRegistryCredentialFile(join(dir, 'missing'), scope)).rejects.toThrow(/is the revision's registry Secret mounted/);
    const notJson = join(dir, 'notjson');
    writeFileSync(notJson, token);
    await expect(readRegistryCredentialFile(notJson, scope)).rejects.toThrow(/not JSON/);
  });
});

describe('registrar', () => {
  const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => silent } as never;
  const worker = { ...scope, executor: 'deploy' as const, instanceId: 'w1', host: '127.0.0.1', port: 1, containerConcurrency: 0 };

  it('presents the credential as Authorization: Bearer on register, heartbeat and deregister', async () => {
    const seen: Array<{ path: string; auth: string | null }> = [];
    const fetchStub = (async (url: string, init: RequestInit) => {
      seen.push({ path: new URL(url).pathname, auth: new Headers(init.headers).get('authorization') });
      return new Response(JSON.stringify({ code: 'ok', data: {} }), { status: 200 });
    }) as typeof fetch;
    const r = new Registrar({ urls: ['http://registry'], worker, credential: token, leaseTtlSeconds: 1, log: silent, fetch: fetchStub });
    r.start();
    await new Promise((res) => setTimeout(res, 500));
    await r.stop();
    expect(seen.map((s) => s.path)).toEqual(expect.arrayContaining(['/api/v1/registry/register', '/api/v1/registry/heartbeat', '/api/v1/registry/deregister']));
    for (const s of seen) expect(s.auth).toBe(`Bearer ${token}`);
  });

  it('sends no Authorization without a credential', async () => {
    const auths: Array<string | null> = [];
    const fetchStub = (async (_url: string, init: RequestInit) => {
      auths.push(new Headers(init.headers).get('authorization'));
      return new Response(JSON.stringify({ code: 'ok', data: {} }), { status: 200 });
    }) as typeof fetch;
    const r = new Registrar({ urls: ['http://registry'], worker, log: silent, fetch: fetchStub });
    r.start();
    await new Promise((res) => setTimeout(res, 50));
    await r.stop();
    expect(auths.length).toBeGreaterThan(0);
    expect(auths.every((a) => a === null)).toBe(true);
  });
});
