/**
 * Issue 20 item 2 on the local backend, real processes: a tenant's pooled function, called through
 * the router, tries to specialize the pool's other warm workers with everything it can reach (no
 * credential, its environment and /proc environ, its work dir, the pool's work dirs). Before, local
 * pool workers took any specialize call, so it could pre-load its code as another function.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Platform, revisionReady, startPlatform } from '../../testing/platform.ts';
import { until } from '../../testing/spawn-server.ts';

const TOKEN = 'pool-security-store-token';
const THIEF = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'runtime', 'fixtures', 'specialize-thief.mjs'), 'utf8');
type Workers = { pool: { specializations: number; warm: Record<string, number> } };

describe('local pool: function code cannot specialize other warm workers', () => {
  let p: Platform;
  const workers = async (): Promise<Workers> => (await (await fetch(`${p.op.url}/v1/workers`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Workers;

  beforeAll(async () => {
    p = await startPlatform({ operatorArgs: ['--pool-size', '3', '--pool-idle-timeout', '60s'], storeToken: TOKEN });
    await p.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'thief', namespace: 'default' }, spec: { template: { source: { inline: THIEF }, executor: 'pool', timeoutSeconds: 60 } } });
    await revisionReady(p, 'thief-00001');
    await p.publishRoutes();
    await until(workers, (w) => w.pool.warm['default/nodejs'] === 3, 60_000, 'three warm workers');
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  it('every attempt on every warm worker is refused; the pool keeps its warm workers', { timeout: 90_000 }, async () => {
    // The thief's worker is specialized by the first request; the pool refills to 3 warm ones.
    expect((await fetch(`${p.routerUrl}/default/thief/?targets=`)).status).toBe(200);
    await until(workers, (w) => w.pool.warm['default/nodejs'] === 3, 60_000, 'pool refilled');
    const own = p.endpoints().find((e) => e.function === 'thief')!.address;
    // Warm workers' addresses, as a tenant could learn them (ports on loopback, here from the pool logs).
    const logs = join(p.dir, 'op', 'logs', 'default', 'pool');
    const addresses = readdirSync(logs)
      .flatMap((f) => [...readFileSync(join(logs, f), 'utf8').matchAll(/listening http:\/\/(\S+)/g)].map((m) => m[1]!))
      .filter((a) => a !== own);
    expect(addresses.length).toBeGreaterThanOrEqual(3);
    const before = (await workers()).pool.specializations;
    const look = [join(p.dir, 'op', 'pool')].join(',');
    const res = await fetch(`${p.routerUrl}/default/thief/?targets=${addresses.join(',')}&look=${look}`);
    const report = (await res.json()) as { attempts: number; accepted: unknown[]; statuses: Record<string, number> };
    expect(report.attempts).toBeGreaterThan(addresses.length);
    expect(report.accepted).toEqual([]);
    expect(report.statuses['200']).toBeUndefined();
    // Still three warm generic workers, and the executor specialized nothing meanwhile.
    const after = await workers();
    expect(after.pool.warm['default/nodejs']).toBe(3);
    expect(after.pool.specializations).toBe(before);
  });
});
