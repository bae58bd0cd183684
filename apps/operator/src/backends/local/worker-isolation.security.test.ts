/**
 * Issue 20 item 7 on real processes, as root (as `sudo orrery up` runs): an operator with a
 * stateful deploy function, a stateful pooled function and an attacker's function. The attacker's
 * code tries to read the other functions' state token files, their registration credentials and
 * environments (/proc/<pid>/environ), the master keys, the operator's store and its environment,
 * and to use the store over loopback without the token. Every attempt must fail. Before, workers
 * ran as root with the operator's whole environment and the store trusted loopback callers.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpStore, type ResourceStore } from '@orrery/store';
import { OPERATOR_BIN } from '../../testing/platform.ts';
import { type SpawnedServer, spawnServer, until } from '../../testing/spawn-server.ts';

const asRoot = process.getuid?.() === 0;
const OPERATOR_SECRET = 'operator-env-secret-3b9f';
const STORE_TOKEN = 'isolation-test-store-token-9a8b7c';

/** Reports who it runs as and where its credentials are; with ?attack=… tries everything it is given. */
const PROBE = `
import { readFile, readdir } from 'node:fs/promises';
export default async (request) => {
  const url = new URL(request.url);
  if (!url.searchParams.has('attack')) {
    return Response.json({ pid: process.pid, uid: process.getuid(), tokenPath: process.env.ORRERY_STATE_TOKEN_PATH ?? null, env: Object.keys(process.env) });
  }
  const plan = JSON.parse(url.searchParams.get('attack'));
  const results = [];
  const attempt = async (what, fn) => {
    try {
      const got = await fn();
      results.push({ what, ok: true, got: String(got).slice(0, 80) });
    } catch (err) {
      results.push({ what, ok: false, error: err.code ?? err.message });
    }
  };
  for (const f of plan.files) await attempt('read ' + f, () => readFile(f, 'utf8'));
  for (const d of plan.dirs) await attempt('list ' + d, () => readdir(d));
  for (const pid of plan.pids) await attempt('environ ' + pid, () => readFile('/proc/' + pid + '/environ', 'latin1'));
  await attempt('store GET without token', async () => {
    const res = await fetch(plan.store + '/v1/store/Function');
    if (res.status !== 200) throw Object.assign(new Error(), { code: 'HTTP ' + res.status });
    return res.status;
  });
  await attempt('store apply without token', async () => {
    const res = await fetch(plan.store + '/v1/store/apply', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'planted', namespace: 'default' }, spec: { template: { source: { inline: 'x' } } } }) });
    if (res.status !== 200) throw Object.assign(new Error(), { code: 'HTTP ' + res.status });
    return res.status;
  });
  await attempt('workers list without token', async () => {
    const res = await fetch(plan.store + '/v1/workers');
    if (res.status !== 200) throw Object.assign(new Error(), { code: 'HTTP ' + res.status });
    return res.status;
  });
  return Response.json({ uid: process.getuid(), results });
};`;

const fnResource = (name: string, executor: 'deploy' | 'pool', keyspace: string) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'default' },
  spec: { template: { source: { inline: PROBE }, executor, timeoutSeconds: 30 }, state: { keyspace } },
});

describe.skipIf(!asRoot)('local worker isolation as root (real processes)', () => {
  let dir: string;
  let dataDir: string;
  let op: SpawnedServer;
  let store: ResourceStore;
  const auth = { authorization: `Bearer ${STORE_TOKEN}` };
  type Workers = { endpoints: Array<{ function: string; address: string; ready: boolean }>; pids: number[] };
  const workers = async (): Promise<Workers> => (await (await fetch(`${op.url}/v1/workers`, { headers: auth })).json()) as Workers;
  const addressOf = async (fn: string) => (await until(workers, (w) => w.endpoints.some((e) => e.function === fn && e.ready), 60_000, `${fn} ready`)).endpoints.find((e) => e.function === fn && e.ready)!.address;
  type Who = { pid: number; uid: number; tokenPath: string | null; env: string[] };
  const who = async (address: string): Promise<Who> => (await (await fetch(`http://${address}/`)).json()) as Who;
  let victim: Who;
  let pooled: Who;
  let attacker: Who;
  let attackerAddress: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-isolation-'));
    dataDir = join(dir, 'op');
    // Secrets where `orrery up` keeps them: <data-dir>/secrets, 0700/0600.
    mkdirSync(join(dataDir, 'secrets'), { recursive: true, mode: 0o700 });
    for (const [name, value] of [['master.key', '4d'.repeat(32)], ['registry-master.key', '5e'.repeat(32)], ['store.token', STORE_TOKEN]]) {
      writeFileSync(join(dataDir, 'secrets', name!), `${value}\n`, { mode: 0o600 });
    }
    op = await spawnServer(
      OPERATOR_BIN,
      [
        '--port', '0', '--data-dir', dataDir, '--resync-seconds', '2', '--pool-size', '1',
        '--store-token-file', join(dataDir, 'secrets', 'store.token'),
        '--master-key-file', join(dataDir, 'secrets', 'master.key'), '--state-url', 'http://127.0.0.1:9',
        '--registry-master-key-file', join(dataDir, 'secrets', 'registry-master.key'),
      ],
      { SUPER_SECRET_OPERATOR_VAR: OPERATOR_SECRET, AWS_SECRET_ACCESS_KEY: OPERATOR_SECRET },
    );
    store = createHttpStore(op.url, { token: STORE_TOKEN });
    await store.apply(fnResource('victim', 'deploy', 'victim'));
    await store.apply(fnResource('attacker', 'deploy', 'attacker'));
    await store.apply(fnResource('pooled', 'pool', 'pooled'));
    victim = await who(await addressOf('victim'));
    attackerAddress = await addressOf('attacker');
    attacker = await who(attackerAddress);
    await until(() => store.get('Revision', 'default', 'pooled-00001'), (r) => r !== undefined, 30_000, 'pooled revision');
    const specialized = await until(
      async () => fetch(`${op.url}/v1/executor/specialize`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ namespace: 'default', function: 'pooled', revision: 'pooled-00001' }) }),
      (r) => r.status === 200,
      60_000,
      'pooled specialized',
    );
    pooled = await who(((await specialized.json()) as { address: string }).address);
  }, 180_000);

  afterAll(async () => {
    await op?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('every function runs under its own unprivileged uid, with a clean environment', () => {
    const uids = [victim.uid, pooled.uid, attacker.uid];
    for (const uid of uids) expect(uid).toBeGreaterThanOrEqual(200_000);
    expect(new Set(uids).size).toBe(3);
    for (const w of [victim, pooled, attacker]) {
      expect(w.env).not.toContain('SUPER_SECRET_OPERATOR_VAR');
      expect(w.env).not.toContain('AWS_SECRET_ACCESS_KEY');
      expect(w.env).not.toContain('ORRERY_REGISTRY_CREDENTIAL'); // the runtime takes it out before code loads
    }
    expect(victim.tokenPath).toBeTruthy();
    expect(pooled.tokenPath).toBeTruthy();
  });

  it("the attacker's code can read no other function's credentials, no key, no environ, and cannot use the store", { timeout: 60_000 }, async () => {
    const plan = {
      files: [
        victim.tokenPath!,
        pooled.tokenPath!,
        join(dataDir, 'secrets', 'master.key'),
        join(dataDir, 'secrets', 'registry-master.key'),
        join(dataDir, 'secrets', 'store.token'),
        join(dataDir, 'worker-uids.json'),
      ],
      dirs: [dataDir, join(dataDir, 'store'), join(victim.tokenPath!, '..'), join(victim.tokenPath!, '..', '..')],
      pids: [victim.pid, pooled.pid, op.child.pid!],
      store: op.url,
    };
    const res = await fetch(`http://${attackerAddress}/?attack=${encodeURIComponent(JSON.stringify(plan))}`);
    const report = (await res.json()) as { uid: number; results: Array<{ what: string; ok: boolean; error?: string; got?: string }> };
    expect(report.results.length).toBe(plan.files.length + plan.dirs.length + plan.pids.length + 3);
    for (const r of report.results) expect(r, r.what).toMatchObject({ ok: false });
    const errors = Object.fromEntries(report.results.map((r) => [r.what, r.error]));
    for (const f of plan.files) expect(['EACCES', 'EPERM'], f).toContain(errors[`read ${f}`]);
    for (const p of plan.pids) expect(['EACCES', 'EPERM'], String(p)).toContain(errors[`environ ${p}`]);
    for (const s of ['store GET without token', 'store apply without token', 'workers list without token']) expect(errors[s], s).toBe('HTTP 401');
    // The attacker's own state still works for it: its token file is its own to read.
    expect(await store.get('Function', 'default', 'planted')).toBeUndefined();
  });
});
