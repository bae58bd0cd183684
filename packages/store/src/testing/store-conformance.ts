/**
 * The behaviour every ResourceStore must show, whatever backs it: a suite a store's own test
 * file runs with `describeStoreConformance(name, open)` (the embedded and Postgres stores, the
 * HTTP client, the Kubernetes store against a real API server in kube-resource-store.kube.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrreryFunction, Revision } from '@orrery/spec';
import { type ResourceStore, StoreError, type WatchEvent } from '../types.ts';

export interface OpenedStore {
  store: ResourceStore;
  cleanup: () => Promise<void>;
  /**
   * Make the store forget its event history (as compaction does), so a watch from an old
   * resourceVersion must answer `expired`. Absent: the store compacts by itself after the 30
   * writes the test makes (open it with a small retention).
   */
  forgetHistory?: () => void | Promise<void>;
  /**
   * Where the operator writes (it alone creates Revisions). A remote client such as the HTTP
   * store can never pass `allowCreateOnlyKinds`; its harness hands the backing store here.
   */
  operatorStore?: ResourceStore;
}


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

/** The object the watch tests write until every new watch has delivered it (untilWatching). */
const WATCH_MARKER = 'watch-started';

/** True, and `who` recorded in `started`, when `e` is the marker: the tests' watch callbacks skip it. */
function markerSeen(started: Set<string>, who: string, e: WatchEvent): boolean {
  if (e.object.metadata.name !== WATCH_MARKER) return false;
  started.add(who);
  return true;
}

/**
 * Waits until `count` watches have each delivered a write made after they started. A watch opened
 * without a resourceVersion starts from "now", and a Kubernetes store learns where "now" is from a
 * list it makes first: a write right after watch() can land before that list and never arrive as
 * an event. No fixed wait is long enough on a loaded machine (100 ms was not), so the marker is
 * written again every 50 ms until each watch has seen one.
 */
async function untilWatching(store: ResourceStore, started: Set<string>, count: number, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  for (let round = 0; started.size < count; round++) {
    if (Date.now() > end) throw new Error(`only ${started.size} of ${count} watches delivered a write within ${ms} ms (${[...started].join(', ')})`);
    await store.apply({ ...fn(WATCH_MARKER), metadata: { name: WATCH_MARKER, namespace: 'watch', labels: { 'orrery.dev/round': String(round) } } });
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function until<T>(read: () => T, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function describeStoreConformance(name: string, open: () => Promise<OpenedStore>): void {
  describe(`resource store conformance: ${name}`, () => {
    let opened: OpenedStore | undefined;
    let store: ResourceStore;

    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    }, 60_000);
    afterAll(async () => {
      await opened?.cleanup();
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

    it('matches every label asked for, exactly, and an empty selector matches unlabelled objects too', async () => {
      await store.apply({ ...fn('lab-both'), metadata: { name: 'lab-both', namespace: 'labels', labels: { tier: 'web', 'orrery.dev/x': 'v1.2_b' } } });
      await store.apply({ ...fn('lab-tier'), metadata: { name: 'lab-tier', namespace: 'labels', labels: { tier: 'web' } } });
      await store.apply({ ...fn('lab-other'), metadata: { name: 'lab-other', namespace: 'labels', labels: { tier: 'webx' } } });
      await store.apply({ ...fn('lab-none'), metadata: { name: 'lab-none', namespace: 'labels' } });
      const names = async (labels?: Record<string, string>) => (await store.list('Function', { namespace: 'labels', labels })).items.map((i) => i.metadata.name).sort();
      expect(await names({ tier: 'web' })).toEqual(['lab-both', 'lab-tier']);
      expect(await names({ tier: 'web', 'orrery.dev/x': 'v1.2_b' })).toEqual(['lab-both']);
      expect(await names({ tier: 'web', 'orrery.dev/x': 'v1.2' })).toEqual([]);
      expect(await names({ tier: 'we' })).toEqual([]);
      expect(await names({})).toEqual(['lab-both', 'lab-none', 'lab-other', 'lab-tier']);
      expect(await names(undefined)).toEqual(['lab-both', 'lab-none', 'lab-other', 'lab-tier']);
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

    it('a keyspace belongs to one Function: a second declaration is refused naming the owner, the owner stays updatable', async () => {
      const stateful = (name: string, state: Record<string, unknown>) => fn(name, undefined, { state });
      await store.apply(stateful('ks-owner', { keyspace: 'ks-shared' }));
      for (const [name, state] of [['ks-second', { keyspace: 'ks-shared' }], ['ks-shared', {}]] as const) {
        const err = (await store.apply(stateful(name, state)).catch((e: unknown) => e)) as StoreError;
        expect(err, name).toBeInstanceOf(StoreError);
        expect(err.code).toBe('invalid');
        expect(err.details!.map((d) => d.reason)).toEqual(['state_keyspace_taken']);
        expect(err.message).toContain('belongs to Function default/ks-owner');
        expect(await store.get('Function', 'default', name)).toBeUndefined();
      }
      // The owner changes its quotas: the same keyspace, not a new declaration.
      const updated = await store.apply(stateful('ks-owner', { keyspace: 'ks-shared', maxKeys: 7 }));
      expect(updated.metadata.generation).toBe(2);
      // An existing Function moving onto the taken keyspace is a new declaration.
      await store.apply(stateful('ks-mover', { keyspace: 'ks-own' }));
      const moved = (await store.apply(stateful('ks-mover', { keyspace: 'ks-shared' })).catch((e: unknown) => e)) as StoreError;
      expect(moved.details?.map((d) => d.reason)).toEqual(['state_keyspace_taken']);
      // Another namespace has keyspaces of its own.
      const elsewhere = await store.apply({ ...stateful('ks-second', { keyspace: 'ks-shared' }), metadata: { name: 'ks-second', namespace: 'other' } });
      expect(elsewhere.metadata.generation).toBe(1);
      // Once the owner lets go of it, another Function may declare it.
      await store.apply(fn('ks-owner'));
      expect((await store.apply(stateful('ks-second', { keyspace: 'ks-shared' }))).metadata.generation).toBe(1);
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
      await (opened!.operatorStore ?? store).apply(rev, { allowCreateOnlyKinds: true });
      const err = (await store
        .apply({ ...rev, spec: { function: 'zeta', template: { source: { inline: 'b' } } } }, { allowCreateOnlyKinds: true })
        .catch((e: unknown) => e)) as StoreError;
      expect(err.code).toBe('immutable');
      const got = (await store.get('Revision', 'default', 'zeta-00001')) as Revision;
      expect(got.spec.template.source.inline).toBe('a');
    });

    it('refuses to create a Revision unless the caller is the operator', async () => {
      const rev = {
        apiVersion: 'orrery.dev/v1alpha1',
        kind: 'Revision',
        metadata: { name: 'omicron-00001', namespace: 'default', labels: { 'orrery.dev/function': 'omicron' } },
        spec: { function: 'omicron', template: { source: { inline: 'a' } } },
      };
      const err = (await store.apply(rev).catch((e: unknown) => e)) as StoreError;
      expect(err).toBeInstanceOf(StoreError);
      expect(err.code).toBe('immutable');
      expect(await store.get('Revision', 'default', 'omicron-00001')).toBeUndefined();
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
      const started = new Set<string>();
      const w = store.watch('Function', { namespace: 'watch' }, (e) => markerSeen(started, 'w', e) || seen.push(e));
      await untilWatching(store, started, 1);
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

    it('feeds several watches of one kind at once: each its namespace, a resumed one from its resourceVersion, a closed one nothing, each its own copy', async () => {
      // The suite's namespaces (a Kubernetes store needs them to exist): 'watch' and 'elsewhere'.
      const inWatch = (n: string) => ({ ...fn(n), metadata: { name: n, namespace: 'watch' } });
      const ours = (e: WatchEvent) => /^(mu-\d|nu)$/.test(e.object.metadata.name);
      const first = await store.apply(inWatch('mu-0'));
      const all: WatchEvent[] = [];
      const multi: WatchEvent[] = [];
      const closed: WatchEvent[] = [];
      const started = new Set<string>();
      const wAll = store.watch('Function', {}, (e) => markerSeen(started, 'all', e) || (ours(e) && all.push(e)));
      const wMulti = store.watch('Function', { namespace: 'watch' }, (e) => {
        if (markerSeen(started, 'multi', e)) return;
        multi.push(e);
        // A watcher that changes what it was handed changes no one else's.
        e.object.metadata.labels = { touched: 'yes' };
      });
      const wClosed = store.watch('Function', { namespace: 'watch' }, (e) => markerSeen(started, 'closed', e) || closed.push(e));
      await untilWatching(store, started, 3);
      wClosed.close();
      await store.apply(inWatch('mu-1'));
      await store.apply({ ...fn('nu'), metadata: { name: 'nu', namespace: 'elsewhere' } });
      await store.apply(inWatch('mu-2'));
      const resumed: WatchEvent[] = [];
      // From mu-0's version: the marker's writes come after it too.
      const wResumed = store.watch('Function', { namespace: 'watch', sinceResourceVersion: Number(first.metadata.resourceVersion) }, (e) => markerSeen(started, 'resumed', e) || resumed.push(e));
      await until(() => [all.length, multi.length, resumed.length], ([a, m, r]) => a! >= 3 && m! >= 2 && r! >= 2);
      await new Promise((r) => setTimeout(r, 100));
      const names = (l: WatchEvent[]) => l.map((e) => e.object.metadata.name);
      expect(names(multi)).toEqual(['mu-1', 'mu-2']);
      expect(names(resumed)).toEqual(['mu-1', 'mu-2']);
      expect(names(all)).toEqual(['mu-1', 'nu', 'mu-2']);
      expect(closed).toEqual([]);
      expect(all.every((e) => e.object.metadata.labels?.touched === undefined)).toBe(true);
      expect(resumed.every((e) => e.object.metadata.labels?.touched === undefined)).toBe(true);
      for (const w of [wAll, wMulti, wResumed]) w.close();
    });

    it('answers expired for a revision older than the retained history', async () => {
      const first = await store.apply({ ...fn('kappa'), metadata: { name: 'kappa', namespace: 'old' } });
      // retainEvents is 5 and compaction runs every 10 writes: 30 status updates push it past
      for (let i = 0; i < 30; i++) await store.updateStatus('Function', 'old', 'kappa', { observedGeneration: i });
      await opened?.forgetHistory?.();
      await new Promise((r) => setTimeout(r, 300));
      const w = store.watch('Function', { sinceResourceVersion: Number(first.metadata.resourceVersion) }, () => {});
      const err = (await w.done.catch((e: unknown) => e)) as StoreError;
      expect(err).toBeInstanceOf(StoreError);
      expect(err.code).toBe('expired');
    }, 120_000);
  });
}
