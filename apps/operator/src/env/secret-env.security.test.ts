/**
 * Issue 20 item 5 on the local backend, real processes (operator, router, workers): a Function
 * names a secret with `valueFrom.secretKeyRef` instead of writing it into `value`. The operator
 * reads `<data-dir>/secrets/<namespace>/<name>/<key>` when a worker starts and hands the value to
 * that worker only — deploy workers in their environment, pool workers in the specialize call —
 * so the value is in no resource, no command line and no log. A missing secret is a clear
 * condition, not a crash loop. Before, `valueFrom` did not exist: a secret had to sit in `value`.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Revision } from '@orrery/spec';
import { type Platform, revisionReady, startPlatform } from '../testing/platform.ts';
import { until } from '../testing/spawn-server.ts';

const TOKEN = 'secret-env-store-token';
const SECRET = 'sk_live_7f3a9c0d1e2b4a6f';
const CODE = `export default async () => Response.json({ apiKey: process.env.API_KEY ?? null, mode: process.env.MODE ?? null, optional: process.env.OPTIONAL ?? null, pid: process.pid });`;
const env = [
  { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } },
  { name: 'OPTIONAL', valueFrom: { secretKeyRef: { name: 'absent', key: 'k', optional: true } } },
  { name: 'MODE', value: 'plain' },
];
const fnResource = (name: string, executor: 'deploy' | 'pool', e: unknown[] = env) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'default' },
  spec: { template: { source: { inline: CODE }, executor, env: e, timeoutSeconds: 30 } },
});

describe('env from a local secret (real processes)', () => {
  let p: Platform;
  const dataDir = () => join(p.dir, 'op');

  beforeAll(async () => {
    p = await startPlatform({ operatorArgs: ['--pool-size', '1'], storeToken: TOKEN });
    // What `orrery secret set default/shop-keys api-key` writes.
    const dir = join(dataDir(), 'secrets', 'default', 'shop-keys');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'api-key'), SECRET, { mode: 0o600 });
    await p.store.apply(fnResource('deployed', 'deploy'));
    await p.store.apply(fnResource('pooled', 'pool'));
    await p.store.apply(fnResource('broken', 'deploy', [{ name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'nope', key: 'api-key' } } }]));
    await revisionReady(p, 'deployed-00001');
    await revisionReady(p, 'pooled-00001');
    await p.publishRoutes();
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  it('deploy and pool workers get the value; the optional missing one is unset', { timeout: 60_000 }, async () => {
    for (const fn of ['deployed', 'pooled']) {
      const res = await fetch(`${p.routerUrl}/default/${fn}/`);
      expect(res.status, fn).toBe(200);
      expect(await res.json()).toMatchObject({ apiKey: SECRET, mode: 'plain', optional: null });
    }
  });

  it('the value is in no resource, no command line and no log', async () => {
    const pids = ((await (await fetch(`${p.op.url}/v1/workers`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { pids: number[] }).pids;
    for (const pid of [...pids, p.op.child.pid!, p.router.child.pid!]) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      expect(cmdline, `pid ${pid}`).not.toContain(SECRET);
    }
    for (const kind of ['Function', 'Revision'] as const) expect(JSON.stringify((await p.store.list(kind)).items)).not.toContain(SECRET);
    expect(p.op.output()).not.toContain(SECRET);
    const logs = join(dataDir(), 'logs');
    const files = (readdirSync(logs, { recursive: true }) as string[]).filter((f) => f.endsWith('.log'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(join(logs, f), 'utf8'), f).not.toContain(SECRET);
  });

  it('a missing secret keeps the revision from starting workers, with a condition saying how to create it', { timeout: 60_000 }, async () => {
    const rev = (await until(
      () => p.revision('broken-00001'),
      (r) => r?.status?.conditions?.some((c) => c.type === 'Ready' && c.reason === 'SecretMissing') === true,
      60_000,
      'SecretMissing',
    )) as Revision;
    const ready = rev.status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('secret default/nope has no key "api-key"');
    expect(ready.message).toContain('orrery secret set default/nope api-key');
    expect(rev.status!.actualScale ?? 0).toBe(0);
  });
});
