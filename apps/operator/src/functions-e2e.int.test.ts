/**
 * Issue 7 end to end, every part a real process: a 3-member etcd + orrery-registry, orrery-operator
 * (local backend: runtime workers as children, state tokens from the master key), orrery-statesvc
 * (keyspaces from the operator's store) and orrery-router (routes from the store, endpoints from
 * the registry watch). Functions are applied through the store and called through the router.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdCluster, freePort } from '@orrery/etcdcluster';
import type { OrreryFunction, Revision } from '@orrery/spec';
import { type ResourceStore, createHttpStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type SpawnedServer, spawnServer, until } from './testing/spawn-server.ts';

const APPS = join(import.meta.dirname, '..', '..');
const bin = (app: string) => join(APPS, app, 'bin', `orrery-${app}.mjs`);
const COUNTER = parse(readFileSync(join(APPS, '..', 'examples', 'counter', 'function.yaml'), 'utf8')) as OrreryFunction;

const fnDoc = (name: string, template: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'default' },
  spec: { template: { executor: 'deploy', ...template }, ...extra },
});

/** Says which code answered, and its pid, so tests can tell revisions and workers apart. */
const greet = (version: string) => `
export default async () => Response.json({ version: ${JSON.stringify(version)}, pid: process.pid });
`;

/** Fails with 500 the moment two requests overlap in this worker. */
const SINGLE = `
let inflight = 0;
export default async () => {
  inflight++;
  const overlapped = inflight > 1;
  await new Promise((r) => setTimeout(r, 50));
  inflight--;
  return overlapped ? new Response('two requests at once', { status: 500 }) : Response.json({ ok: true });
};
`;

/** ?ms=N sleeps before answering; ?stream=1 sends a first chunk at once, then one every 500 ms for 3 s. */
const SLOW = `
export default async (request) => {
  const url = new URL(request.url);
  if (url.searchParams.get('stream')) {
    const enc = new TextEncoder();
    let n = 0;
    return new Response(new ReadableStream({
      async pull(c) {
        if (n > 0) await new Promise((r) => setTimeout(r, 500));
        c.enqueue(enc.encode('chunk' + n + '\\n'));
        if (++n > 6) c.close();
      },
    }));
  }
  await new Promise((r) => setTimeout(r, Number(url.searchParams.get('ms') ?? 0)));
  return Response.json({ slept: Number(url.searchParams.get('ms') ?? 0), pid: process.pid });
};
`;

const dir = mkdtempSync(join(tmpdir(), 'orrery-e2e-'));
let etcd: EtcdCluster | undefined;
const servers: SpawnedServer[] = [];
let operator: SpawnedServer;
let routerUrl = '';
let routerAdmin = '';
let registryUrl = '';
let store: ResourceStore;
let storeTokenFile = '';

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${routerUrl}/default${path}`, init);
  return { status: res.status, text: await res.text() };
}
const json = <T>(r: { text: string }) => JSON.parse(r.text) as T;

/** Polls through the router until the call answers 200 and `ok` holds. */
function serves<T>(path: string, ok: (body: T) => boolean, init: RequestInit = {}, what = path): Promise<T> {
  return until(
    async () => {
      const r = await call(path, init);
      return r.status === 200 ? json<T>(r) : undefined;
    },
    (b) => b !== undefined && ok(b),
    60_000,
    what,
  ) as Promise<T>;
}

const readyFunction = (name: string, ok: (f: OrreryFunction) => boolean = () => true) =>
  until<OrreryFunction>(
    () => store.get('Function', 'default', name) as Promise<OrreryFunction>,
    (f) => f?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && ok(f),
    60_000,
    `${name} Ready`,
  );

/** Inodes of sockets listening on `port` (from /proc/net/tcp*): how a worker's address maps to its pid. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  return inodes;
}

function ownsSocket(pid: number, inodes: Set<string>): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return !!m && inodes.has(m[1]!);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * Pids of the ready workers serving `revision` (deploy workers and specialized pool workers alike),
 * from the operator's worker listing: address → listening socket → the worker process owning it.
 */
async function workerPids(revision: string): Promise<number[]> {
  const { endpoints, pids } = (await (await fetch(`${operator.url}/v1/workers`, { headers: { authorization: `Bearer ${readFileSync(storeTokenFile, 'utf8').trim()}` } })).json()) as { endpoints: Array<{ revision: string; address: string; ready: boolean }>; pids: number[] };
  const out: number[] = [];
  for (const e of endpoints.filter((x) => x.revision === revision && x.ready)) {
    const inodes = listeningInodes(Number(e.address.slice(e.address.lastIndexOf(':') + 1)));
    const pid = pids.find((p) => ownsSocket(p, inodes));
    if (pid !== undefined) out.push(pid);
  }
  return out;
}

beforeAll(async () => {
  const keyFile = join(dir, 'master.key');
  writeFileSync(keyFile, `${'5a'.repeat(32)}\n`);
  // Workers register under orrery.functions. with credentials the operator derives from this key.
  const registryKeyFile = join(dir, 'registry-master.key');
  writeFileSync(registryKeyFile, `${'6b'.repeat(32)}\n`);
  etcd = await EtcdCluster.start({ size: 3 });
  const registry = await spawnServer(bin('registry'), [
    '--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', etcd.endpoints().join(','),
    '--admin-token', 'e2e-admin-token-0123456789', '--replication-token', 'e2e-replication-token-0123', '--prometheus-sd-token', 'e2e-sd-token-0123456789',
    '--registry-master-key-file', registryKeyFile, '--require-write-tokens',
    // Every seed setting must be given (issue 21 item 4).
    '--region', 'e2e', '--cluster-id', 'e2e/registry', '--request-timeout', '5s', '--shutdown-timeout', '5s',
    '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128',
  ]);
  servers.push(registry);
  registryUrl = registry.url;
  // statesvc needs the operator's store and the operator needs statesvc's URL: reserve its port first.
  const statePort = await freePort();
  operator = await spawnServer(bin('operator'), [
    '--port', '0', '--data-dir', join(dir, 'operator'), '--registry-url', registry.url, '--state-url', `http://127.0.0.1:${statePort}`,
    '--master-key-file', keyFile, '--resync-seconds', '2', '--registry-master-key-file', registryKeyFile,
  ]);
  servers.push(operator);
  // No --store-token-file: the operator made one in its data dir; everyone else presents it.
  storeTokenFile = join(dir, 'operator', 'secrets', 'store.token');
  store = createHttpStore(operator.url, { token: readFileSync(storeTokenFile, 'utf8').trim() });
  servers.push(await spawnServer(bin('statesvc'), ['--port', String(statePort), '--driver', 'memory', '--master-key-file', keyFile, '--store-url', operator.url, '--store-token-file', storeTokenFile]));
  const router = await spawnServer(bin('router'), ['--port', '0', '--admin-port', '0', '--store-url', operator.url, '--store-token-file', storeTokenFile, '--registry-url', registry.url, '--autoscaler-url', operator.url, '--executor-url', operator.url]);
  servers.push(router);
  routerUrl = router.url;
  routerAdmin = /admin (http:\/\/\S+)/.exec(router.output())![1]!;
}, 120_000);

afterAll(async () => {
  // Operator first (it stops its workers), the rest in reverse start order.
  for (const s of [...servers].reverse()) {
    const t = setTimeout(() => s.child.kill('SIGKILL'), 20_000);
    await s.stop();
    clearTimeout(t);
  }
  await etcd?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('functions on real processes: operator, registry on 3-member etcd, statesvc, router', () => {
  it('deploys the counter example; the count increments through the router', { timeout: 90_000 }, async () => {
    await store.apply(COUNTER);
    await readyFunction('counter');
    const first = await serves<{ count: number }>('/counter/?key=e2e', () => true, { method: 'POST' }, 'counter answers a POST');
    const second = json<{ count: number }>(await call('/counter/?key=e2e', { method: 'POST' }));
    expect(second.count).toBe(first.count + 1);
    const read = json<{ count: number }>(await call('/counter/?key=e2e'));
    expect(read.count).toBe(second.count);
    // Its worker registered with the credential the operator gave it (writes there need one).
    const deadline = Date.now() + 20_000;
    let listed: Array<{ service: string; labels: Record<string, string> }> = [];
    while (Date.now() < deadline && listed.length === 0) {
      const q = await fetch(`${registryUrl}/api/v1/registry/instances?namespace=default&servicePrefix=orrery.functions.default.counter`);
      listed = ((await q.json()) as { data: { instances: typeof listed } }).data.instances;
      if (listed.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed.length).toBeGreaterThan(0);
    expect(listed[0]!.service).toMatch(/^orrery\.functions\.default\.counter\.counter-\d{5}$/);
  });

  it('the stateful counter keeps its count across a new revision and a killed worker', { timeout: 120_000 }, async () => {
    const before = json<{ count: number }>(await call('/counter/?key=e2e')).count;
    expect(before).toBeGreaterThan(0);
    const changed = structuredClone(COUNTER);
    changed.spec.template.env = [{ name: 'COUNTER_EDITION', value: '2' }];
    await store.apply(changed);
    await readyFunction('counter', (f) => f.status?.latestReadyRevision === 'counter-00002');
    // Traffic moves to revision 2 once the router's store mirror has the new status (the counter
    // uses the pool executor: the first request routed there specializes a warm worker). Reads do
    // not change the count, so read until revision 2 has a worker, then write.
    const [pid] = await until(
      async () => {
        await call('/counter/?key=e2e');
        return workerPids('counter-00002');
      },
      (p) => p.length === 1,
      60_000,
      'counter-00002 worker',
    );
    const after = await serves<{ count: number }>('/counter/?key=e2e', () => true, { method: 'POST' });
    expect(after.count).toBe(before + 1);

    process.kill(pid!, 'SIGKILL');
    await until(() => { try { process.kill(pid!, 0); return false; } catch { return true; } }, (gone) => gone, 10_000, 'worker killed');
    const again = await serves<{ count: number }>('/counter/?key=e2e', () => true, { method: 'POST' }, 'counter after restart');
    expect(again.count).toBe(before + 2);
    const [replacement] = await until(() => workerPids('counter-00002'), (p) => p.length === 1, 30_000, 'a new counter-00002 worker');
    expect(replacement).not.toBe(pid);
  });

  it('a template change makes revision 2, revision 1 stays unchanged and reachable by tag; 50/50 splits within ±5 %', { timeout: 120_000 }, async () => {
    await store.apply(fnDoc('greet', { source: { inline: greet('one') } }));
    await readyFunction('greet');
    expect((await serves<{ version: string }>('/greet/', () => true)).version).toBe('one');
    const r1 = (await store.get('Revision', 'default', 'greet-00001')) as Revision;

    await store.apply(fnDoc('greet', { source: { inline: greet('two') } }, { traffic: [{ latestRevision: true, percent: 100 }, { revisionName: 'greet-00001', percent: 0, tag: 'old' }] }));
    await readyFunction('greet', (f) => f.status?.latestReadyRevision === 'greet-00002');
    await serves<{ version: string }>('/greet/', (b) => b.version === 'two', {}, 'latest serves revision 2');
    expect(json<{ version: string }>(await call('/greet/', { headers: { 'orrery-tag': 'old' } })).version).toBe('one');
    const r1After = (await store.get('Revision', 'default', 'greet-00001')) as Revision;
    expect(r1After.spec).toEqual(r1.spec);
    expect(r1After.metadata.generation).toBe(r1.metadata.generation);
    expect((await store.get('Revision', 'default', 'greet-00002'))?.spec).toMatchObject({ function: 'greet' });

    await store.apply(
      fnDoc('greet', { source: { inline: greet('two') } }, { traffic: [{ revisionName: 'greet-00001', percent: 50, tag: 'old' }, { revisionName: 'greet-00002', percent: 50, tag: 'new' }] }),
    );
    // Once the router has the split, both versions show up; then count.
    const seen = new Set<string>();
    await until(
      async () => {
        seen.add(json<{ version: string }>(await call('/greet/')).version);
        return seen.size;
      },
      (n) => n === 2,
      30_000,
      'both revisions answer',
    );
    // 1000 requests: ±5 % is then more than 3 standard deviations of a fair coin (400 would be only 2).
    const N = 1000;
    let ones = 0;
    for (let i = 0; i < N; i += 25) {
      const batch = await Promise.all(Array.from({ length: 25 }, () => call('/greet/')));
      for (const r of batch) {
        expect(r.status).toBe(200);
        if (json<{ version: string }>(r).version === 'one') ones++;
      }
    }
    expect(Math.abs(ones / N - 0.5)).toBeLessThanOrEqual(0.05);
    expect(json<{ version: string }>(await call('/greet/', { headers: { 'orrery-tag': 'new' } })).version).toBe('two');
  });

  it('containerConcurrency 1: five parallel clients never overlap in the worker', { timeout: 90_000 }, async () => {
    await store.apply(fnDoc('single', { source: { inline: SINGLE }, containerConcurrency: 1 }));
    await readyFunction('single');
    await serves('/single/', () => true);
    const statuses = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const out: number[] = [];
        for (let i = 0; i < 8; i++) out.push((await call('/single/')).status);
        return out;
      }),
    );
    expect(statuses.flat()).toEqual(Array.from({ length: 40 }, () => 200));
  });

  it('timeoutSeconds 2: 0.5 s → 200, 3 s before the first byte → 504, streaming after an early first byte → 200', { timeout: 90_000 }, async () => {
    await store.apply(fnDoc('slow', { source: { inline: SLOW }, timeoutSeconds: 2 }));
    await readyFunction('slow');
    await serves('/slow/?ms=0', () => true);
    expect((await call('/slow/?ms=500')).status).toBe(200);
    expect((await call('/slow/?ms=3000')).status).toBe(504);
    const started = Date.now();
    const streamed = await call('/slow/?stream=1');
    expect(streamed.status).toBe(200);
    expect(streamed.text.trim().split('\n')).toHaveLength(7);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });

  it('a killed worker is restarted, re-registered and serves again', { timeout: 90_000 }, async () => {
    const { pid } = await serves<{ pid: number }>('/greet/', () => true, { headers: { 'orrery-tag': 'new' } });
    process.kill(pid, 'SIGKILL');
    const fresh = await serves<{ pid: number; version: string }>('/greet/', (b) => b.pid !== pid, { headers: { 'orrery-tag': 'new' } }, 'a new greet-00002 worker');
    expect(fresh.version).toBe('two');
  });

  it('the CLI sees the same platform: get, invoke, logs', { timeout: 60_000 }, async () => {
    const orrery = async (...args: string[]) =>
      (
        await promisify(execFile)(process.execPath, [join(APPS, 'cli', 'bin', 'orrery.mjs'), ...args], {
          cwd: dir,
          env: { ...process.env, ORRERY_STORE_URL: operator.url, ORRERY_ROUTER_URL: routerUrl, ORRERY_DATA_DIR: join(dir, 'operator') },
        })
      ).stdout;
    const table = await orrery('get', 'functions');
    expect(table).toMatch(/^counter\s+True\s+counter-00002\s/m);
    expect(table).toMatch(/^greet\s+True\s+greet-00002\s.*old:greet-00001=50%,new:greet-00002=50%/m);
    expect(await orrery('get', 'revisions')).toMatch(/^greet-00001\s+greet\s+True/m);
    const before = json<{ count: number }>(await call('/counter/?key=e2e')).count;
    expect(JSON.parse(await orrery('invoke', 'counter', '-X', 'POST', '--path', '/?key=e2e'))).toMatchObject({ count: before + 1 });
    expect(await orrery('logs', 'counter', '--revision', 'counter-00002')).toMatch(/^\[(pool-\S+ counter-00002|counter-00002-\d+)\] /m); // a pool worker specialized for it, or a revision worker
    expect(await orrery('logs', 'greet', '--revision', 'greet-00002')).toMatch(/^\[greet-00002-\d+\] /m); // a deploy-executor worker
  });

  it('SIGTERM on a worker drains its in-flight request before it exits', { timeout: 90_000 }, async () => {
    const { pid } = await serves<{ pid: number }>('/slow/?ms=0', () => true);
    const inflight = call('/slow/?ms=1500');
    type Stats = { endpoints: Array<{ revision: string; inflight: number }> };
    await until(
      async () => ((await (await fetch(`${routerAdmin}/v1/stats`)).json()) as Stats).endpoints.filter((e) => e.revision === 'default/slow-00001'),
      (eps) => eps.some((e) => e.inflight > 0),
      10_000,
      'request in flight at the worker',
    );
    process.kill(pid, 'SIGTERM');
    const r = await inflight;
    expect(r.status).toBe(200);
    expect(json<{ pid: number; slept: number }>(r)).toEqual({ pid, slept: 1500 });
    await until(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, (gone) => gone, 20_000, 'drained worker exited');
    // …and the operator brings a replacement up.
    await serves<{ pid: number }>('/slow/?ms=0', (b) => b.pid !== pid, {}, 'replacement worker');
  });
});
