import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createTestDatabase } from '@orrery/db';
import type { OrreryFunction, Revision } from '@orrery/spec';
import { createHttpStore } from './http/store-client.ts';
import { createStoreHandler } from './http/serve-store.ts';
import { createLocalStore } from './local-store.ts';
import { type ResourceStore, StoreError, type WatchEvent } from './types.ts';

const fn = (name: string, inline = 'export default async () => new Response("hi")', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'default', labels: { team: 'a' } },
  spec: { template: { source: { inline } }, ...extra },
});

const env = (name: string, allowed: 'single' | 'infinite') => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Environment',
  metadata: { name, namespace: 'default' },
  spec: { allowedFunctionsPerContainer: allowed },
});

async function until<T>(read: () => T, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Opened = { store: ResourceStore; url?: string; cleanup: () => Promise<void> };
type Driver = { name: string; open(): Promise<Opened> };
const STORE_OPTS = { pollMs: 200, retainEvents: 5, compactEvery: 10 };
const drivers: Driver[] = [
  {
    name: 'pglite (embedded)',
    async open() {
      const conn = connect({ url: '' });
      const store = await createLocalStore(conn, STORE_OPTS);
      return { store, cleanup: async () => (await store.close(), await conn.close()) };
    },
  },
  {
    name: 'postgres',
    async open() {
      const tdb = await createTestDatabase('orrery_store');
      const conn = connect({ url: tdb.url, max: 4 });
      const store = await createLocalStore(conn, STORE_OPTS);
      return { store, url: tdb.url, cleanup: async () => (await store.close(), await conn.close(), await tdb.drop()) };
    },
  },
  {
    name: 'http client of an embedded store',
    async open() {
      const conn = connect({ url: '' });
      const local = await createLocalStore(conn, STORE_OPTS);
      const handle = createStoreHandler(local, { token: 'test-token' });
      const server = createServer((req, res) => {
        void handle(req, res).then((handled) => {
          if (!handled) res.writeHead(404).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      const store = createHttpStore(`http://127.0.0.1:${port}`, { token: 'test-token', reconnectMs: 100 });
      return {
        store,
        cleanup: async () => {
          server.closeAllConnections();
          await new Promise((r) => server.close(r));
          await local.close();
          await conn.close();
        },
      };
    },
  },
];

describe.each(drivers)('resource store on $name', (driver) => {
  let url: string | undefined;
  let cleanup: () => Promise<void>;
  let store: ResourceStore;

  beforeAll(async () => {
    ({ store, url, cleanup } = await driver.open());
  }, 60_000);
  afterAll(async () => {
    await cleanup?.();
  });

  it('creates with generation 1, a uid and a resourceVersion; applies defaults', async () => {
    const out = (await store.apply(fn('alpha'))) as OrreryFunction;
    expect(out.metadata.generation).toBe(1);
    expect(out.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(out.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(out.spec.template.executor).toBe('deploy');
    const got = (await store.get('Function', 'default', 'alpha')) as OrreryFunction;
    expect(got.metadata.resourceVersion).toBe(out.metadata.resourceVersion);
    expect(got.spec).toEqual(out.spec);
  });

  it('re-applying the same object changes nothing; a label change keeps the generation; a spec change bumps it', async () => {
    const a = await store.apply(fn('beta'));
    const same = await store.apply(fn('beta'));
    expect(same.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
    const relabeled = await store.apply({ ...fn('beta'), metadata: { name: 'beta', namespace: 'default', labels: { team: 'b' } } });
    expect(relabeled.metadata.generation).toBe(1);
    expect(Number(relabeled.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    const v2 = fn('beta', 'export default async () => new Response("v2")');
    const changed = await store.apply({ ...v2, metadata: { ...v2.metadata, labels: { team: 'b' } } });
    expect(changed.metadata.generation).toBe(2);
    expect(changed.metadata.uid).toBe(a.metadata.uid);
  });

  it('lists by namespace and labels', async () => {
    await store.apply({ ...fn('gamma'), metadata: { name: 'gamma', namespace: 'other', labels: { team: 'a' } } });
    const all = await store.list('Function');
    expect(all.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(['alpha', 'beta', 'gamma']));
    const other = await store.list('Function', { namespace: 'other' });
    expect(other.items.map((i) => i.metadata.name)).toEqual(['gamma']);
    const teamA = await store.list('Function', { labels: { team: 'a' } });
    expect(teamA.items.map((i) => i.metadata.name).sort()).toEqual(['alpha', 'gamma']);
  });

  it('refuses invalid objects with every error and its path', async () => {
    const bad = fn('delta', undefined, { traffic: [{ latestRevision: true, percent: 60 }], state: { keyspace: 'Bad:Name' } });
    const err = await store.apply(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    const se = err as StoreError;
    expect(se.code).toBe('invalid');
    expect(se.status).toBe(422);
    const paths = se.details!.map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['spec.state.keyspace']));
    expect(se.details!.some((d) => d.path.startsWith('spec.traffic'))).toBe(true);
    expect(await store.get('Function', 'default', 'delta')).toBeUndefined();
  });

  it('uses the Environment from the store for the state rule', async () => {
    await store.apply(env('shared', 'infinite'));
    const err = (await store
      .apply(fn('eps', undefined, { template: { source: { inline: 'x' }, environment: 'shared' }, state: {} }))
      .catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('invalid');
    expect(err.details!.map((d) => d.path)).toContain('spec.state');
    await store.apply(env('single', 'single'));
    const ok = await store.apply(fn('eps', undefined, { template: { source: { inline: 'x' }, environment: 'single' }, state: {} }));
    expect(ok.metadata.generation).toBe(1);
  });

  it('rejects a stale resourceVersion with conflict', async () => {
    const a = await store.apply(fn('zeta'));
    await store.apply(fn('zeta', 'export default async () => new Response("2")'));
    const err = (await store.apply(fn('zeta', 'x'), { resourceVersion: a.metadata.resourceVersion }).catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('conflict');
    expect(err.status).toBe(409);
  });

  it('keeps revisions immutable', async () => {
    const rev = {
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Revision',
      metadata: { name: 'zeta-00001', namespace: 'default', labels: { 'orrery.dev/function': 'zeta' } },
      spec: { function: 'zeta', template: { source: { inline: 'a' } } },
    };
    await store.apply(rev);
    const err = (await store
      .apply({ ...rev, spec: { function: 'zeta', template: { source: { inline: 'b' } } } })
      .catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('immutable');
    const got = (await store.get('Revision', 'default', 'zeta-00001')) as Revision;
    expect(got.spec.template.source.inline).toBe('a');
  });

  it('updates status without bumping the generation and validates it', async () => {
    const a = await store.apply(fn('eta'));
    const s = (await store.updateStatus('Function', 'default', 'eta', { observedGeneration: 1, latestCreatedRevision: 'eta-00001' })) as OrreryFunction;
    expect(s.metadata.generation).toBe(1);
    expect(s.status?.latestCreatedRevision).toBe('eta-00001');
    expect(Number(s.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    // apply keeps the status
    const again = (await store.apply(fn('eta', 'y'))) as OrreryFunction;
    expect(again.status?.latestCreatedRevision).toBe('eta-00001');
    // undefined members are not a change (they vanish in storage); otherwise writers loop forever
    const same = await store.updateStatus('Function', 'default', 'eta', { observedGeneration: 1, latestCreatedRevision: 'eta-00001', url: undefined });
    expect(same.metadata.resourceVersion).toBe(again.metadata.resourceVersion);
    const bad = (await store.updateStatus('Function', 'default', 'eta', { observedGeneration: -3 }).catch((e: unknown) => e)) as StoreError;
    expect(bad.code).toBe('invalid');
    const missing = (await store.updateStatus('Function', 'default', 'nope', {}).catch((e: unknown) => e)) as StoreError;
    expect(missing.code).toBe('not_found');
  });

  it('watches added, modified and deleted in order, and resumes from a resourceVersion', async () => {
    const seen: WatchEvent[] = [];
    const w = store.watch('Function', { namespace: 'watch' }, (e) => seen.push(e));
    await new Promise((r) => setTimeout(r, 100));
    const mk = (inline: string) => ({ ...fn('theta', inline), metadata: { name: 'theta', namespace: 'watch' } });
    const created = await store.apply(mk('1'));
    await store.apply(mk('2'));
    await store.apply({ ...fn('other-ns'), metadata: { name: 'iota', namespace: 'elsewhere' } });
    await store.delete('Function', 'watch', 'theta');
    await until(() => seen.length, (n) => n >= 3);
    expect(seen.map((e) => e.type)).toEqual(['added', 'modified', 'deleted']);
    expect(seen.every((e) => e.object.metadata.namespace === 'watch')).toBe(true);
    const rvs = seen.map((e) => e.resourceVersion);
    expect([...rvs].sort((x, y) => x - y)).toEqual(rvs);
    w.close();

    const replay: WatchEvent[] = [];
    const w2 = store.watch('Function', { namespace: 'watch', sinceResourceVersion: Number(created.metadata.resourceVersion) }, (e) => replay.push(e));
    await until(() => replay.length, (n) => n >= 2);
    expect(replay.map((e) => e.type)).toEqual(['modified', 'deleted']);
    w2.close();
    expect(await store.delete('Function', 'watch', 'theta')).toBe(false);
  });

  it('answers expired for a revision older than the retained history', async () => {
    const first = await store.apply({ ...fn('kappa'), metadata: { name: 'kappa', namespace: 'old' } });
    // retainEvents is 5 and compaction runs every 10 writes: 30 status updates push it past
    for (let i = 0; i < 30; i++) await store.updateStatus('Function', 'old', 'kappa', { observedGeneration: i });
    await new Promise((r) => setTimeout(r, 300));
    const w = store.watch('Function', { sinceResourceVersion: Number(first.metadata.resourceVersion) }, () => {});
    const err = (await w.done.catch((e: unknown) => e)) as StoreError;
    expect(err).toBeInstanceOf(StoreError);
    expect(err.code).toBe('expired');
  }, 120_000);

  it.runIf(driver.name === 'postgres')('delivers changes to a second process-like store through LISTEN/NOTIFY', async () => {
    const conn2 = connect({ url: url!, max: 2 });
    const store2 = await createLocalStore(conn2, { skipMigrate: true, pollMs: 60_000 });
    try {
      const seen: WatchEvent[] = [];
      const w = store2.watch('Function', { namespace: 'notify' }, (e) => seen.push(e));
      await new Promise((r) => setTimeout(r, 200));
      await store.apply({ ...fn('lambda'), metadata: { name: 'lambda', namespace: 'notify' } });
      // the safety poll is a minute: only the notification can deliver this in time
      await until(() => seen.length, (n) => n >= 1, 5000);
      expect(seen[0]!.object.metadata.name).toBe('lambda');
      w.close();
    } finally {
      await store2.close();
      await conn2.close();
    }
  });
});

describe('store HTTP surface', () => {
  it('refuses a wrong token with 401 and an unknown kind with 404', async () => {
    const conn = connect({ url: '' });
    const local = await createLocalStore(conn);
    const handle = createStoreHandler(local, { token: 'right' });
    const server = createServer((req, res) => void handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const wrong = await fetch(`${base}/v1/store/Function`, { headers: { authorization: 'Bearer wrong' } });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { code: string }).code).toBe('unauthorized');
      const unknown = await fetch(`${base}/v1/store/Pod`, { headers: { authorization: 'Bearer right' } });
      expect(unknown.status).toBe(404);
      const badJson = await fetch(`${base}/v1/store/apply`, { method: 'POST', body: '{', headers: { authorization: 'Bearer right' } });
      expect(badJson.status).toBe(400);
      const invalid = await createHttpStore(base, { token: 'right' }).apply({ kind: 'Function' }).catch((e: unknown) => e);
      expect((invalid as StoreError).code).toBe('invalid');
      expect((invalid as StoreError).details?.length).toBeGreaterThan(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await local.close();
      await conn.close();
    }
  }, 60_000);
});
