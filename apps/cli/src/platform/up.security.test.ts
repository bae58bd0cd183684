/**
 * Issue 20 items 14 and 1 on the local platform: `orrery up` as a real process (stdout a pipe,
 * as in CI or under a log collector), with its real registry cluster, operator, statesvc and
 * routers.
 * - The summary does not print the admin token (only where it is stored).
 * - The platform's registry takes no anonymous writes: under orrery.functions. not even with the
 *   platform's write token; elsewhere only with it (write tokens are on by default).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrreryUp, startOrreryUp } from '../testing/orrery-up-process.ts';
import type { PlatformInfo } from './platform-file.ts';
import { ETCD_BIN } from './platform-registry.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'orrery-up-security-'));
let up: OrreryUp;
let info: PlatformInfo;

beforeAll(async () => {
  up = startOrreryUp(dataDir, ['--no-console', '--no-examples']);
  info = await up.ready(150_000);
}, 180_000);

afterAll(async () => {
  await up?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

const secret = (name: string) => readFileSync(join(dataDir, 'secrets', name), 'utf8').trim();

describe('orrery up with stdout not a terminal', () => {
  it('does not print the admin token, only the file it is stored in', () => {
    const token = secret('admin.token');
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(up.output()).not.toContain(token);
    expect(up.output()).toContain(`admin token   in ${join(dataDir, 'secrets', 'admin.token')}   (not printed: stdout is not a terminal)`);
    // Nor any other secret of the platform.
    for (const name of ['registry-write.token', 'registry-master.key', 'master.key']) expect(up.output()).not.toContain(secret(name));
  });
});

describe.skipIf(!existsSync(ETCD_BIN))("the platform's registry takes no anonymous writes", () => {
  const register = async (body: Record<string, unknown>, token?: string) => {
    const res = await fetch(`${info.registryUrl}/api/v1/registry/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ leaseTtlSeconds: 30, endpoints: [{ name: 'http', protocol: 'http', host: '127.0.0.1', port: 1 }], ...body }),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, code: ((await res.json()) as { code: string }).code };
  };

  it('under orrery.functions. without a credential, or with the write token: refused', async () => {
    expect(info.registryUrl).toBeTruthy();
    const worker = { namespace: 'default', service: 'orrery.functions.default.counter.counter-00001', instanceId: 'rogue', labels: { 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001' } };
    expect(await register(worker)).toEqual({ status: 401, code: 'credential_required' });
    expect(await register(worker, secret('registry-write.token'))).toEqual({ status: 403, code: 'credential_rejected' });
  });

  it('other services: write tokens are on (no token 401), the platform write token registers', async () => {
    const own = { namespace: 'mine', service: 'company.team.app.svc.api', instanceId: 'i1' };
    expect(await register(own)).toEqual({ status: 401, code: 'credential_required' });
    expect(await register(own, secret('registry-write.token'))).toEqual({ status: 200, code: 'ok' });
  });
});
