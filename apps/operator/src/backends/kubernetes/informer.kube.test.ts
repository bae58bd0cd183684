/**
 * The informer against a real API server: a real watch expiry (etcd compacted, the API server
 * restarted, so its watch cache forgets) while the informer is cut off makes it relist, emitting
 * exactly what it missed; a dropped connection resumes without a relist; bookmarks move the
 * resume point.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { adminKubeConfig, compactEtcd, createNamespace, eventually, installCrds, PartitionProxy, REPO_ROOT, restartApiServer } from '@orrery/kube-testenv';
import { Informer } from './informer.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';

const GV = 'orrery.dev/v1alpha1';
let admin: KubeClient;
let proxy: PartitionProxy;
let viaProxy: KubeClient;
const cleanups: Array<() => Promise<void> | void> = [];

const fnObj = (ns: string, name: string): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: ns },
  spec: { template: { source: { inline: 'export default () => "hi"' } } },
});

beforeAll(async () => {
  const kc = adminKubeConfig();
  admin = new KubeClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  proxy = await PartitionProxy.start(kc.getCurrentCluster()!.server);
  viaProxy = new KubeClient(proxy.kubeConfig(kc));
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await proxy.close();
});

async function namespace(): Promise<string> {
  const ns = await createNamespace('inf');
  cleanups.push(ns.dispose);
  return ns.name;
}

/** An informer on the Functions of `ns` through the cuttable proxy, synced and watching; its events as `TYPE name`. */
async function watchingInformer(ns: string): Promise<{ inf: Informer; events: string[] }> {
  const inf = new Informer(viaProxy, { apiVersion: GV, kind: 'Function', namespace: ns, restartDelayMs: 50 });
  const events: string[] = [];
  inf.on((t, o) => events.push(`${t} ${o.metadata.name}`));
  inf.start();
  cleanups.push(() => inf.stop());
  await inf.hasSynced();
  await eventually('watch open', () => inf.stats.watches > 0);
  return { inf, events };
}

describe('informer on a real API server', () => {
  it('relists after a real expiry (compacted etcd, restarted API server) and emits exactly what it missed', { timeout: 120_000 }, async () => {
    const ns = await namespace();
    await admin.apply(fnObj(ns, 'keep'));
    await admin.apply(fnObj(ns, 'gone'));
    await admin.apply(fnObj(ns, 'changed'));
    const { inf, events } = await watchingInformer(ns);
    expect(events.sort()).toEqual(['ADDED changed', 'ADDED gone', 'ADDED keep']);
    events.length = 0;
    // Cut the informer off; meanwhile the world changes and its resourceVersion is compacted away.
    proxy.partition();
    await admin.apply(fnObj(ns, 'new'));
    await admin.delete(GV, 'Function', ns, 'gone');
    await admin.apply({ ...fnObj(ns, 'changed'), metadata: { name: 'changed', namespace: ns, labels: { v: '2' } } });
    await compactEtcd();
    await restartApiServer();
    proxy.heal();
    await eventually('relist after 410', () => inf.stats.gone >= 1 && inf.cache.has(`${ns}/new`) && !inf.cache.has(`${ns}/gone`), 60_000);
    expect(inf.stats.lists).toBe(2);
    // Exactly what was missed: no replay of the unchanged object, nothing twice.
    expect(events.sort()).toEqual(['ADDED new', 'DELETED gone', 'MODIFIED changed']);
    expect(inf.cache.get(`${ns}/changed`)!.metadata.labels).toEqual({ v: '2' });
    // It keeps watching after the relist.
    await admin.apply(fnObj(ns, 'later'));
    await eventually('watch resumed', () => inf.cache.has(`${ns}/later`));
    expect(events.filter((e) => e === 'ADDED later')).toHaveLength(1);
  });

  it('a dropped connection resumes from the last resourceVersion: no relist, no replay', { timeout: 60_000 }, async () => {
    const ns = await namespace();
    await admin.apply(fnObj(ns, 'before'));
    const { inf, events } = await watchingInformer(ns);
    proxy.partition();
    await admin.apply(fnObj(ns, 'during'));
    await new Promise((r) => setTimeout(r, 300));
    proxy.heal();
    await admin.apply(fnObj(ns, 'after'));
    await eventually('events after the drop', () => inf.cache.has(`${ns}/during`) && inf.cache.has(`${ns}/after`));
    expect(inf.stats.errors + inf.stats.watches).toBeGreaterThan(1);
    expect(inf.stats.lists).toBe(1);
    expect(events).toEqual(['ADDED before', 'ADDED during', 'ADDED after']);
  });

  it('takes bookmarks: the resume point advances without object events and the next watch starts there', { timeout: 60_000 }, async () => {
    const ns = await namespace();
    await admin.apply(fnObj(ns, 'only'));
    // A short server-side timeout: the API server sends a bookmark just before closing the watch.
    const inf = new Informer(admin, { apiVersion: GV, kind: 'Function', namespace: ns, restartDelayMs: 50, watchTimeoutSeconds: 4 });
    const events: string[] = [];
    inf.on((t, o) => events.push(`${t} ${o.metadata.name}`));
    inf.start();
    cleanups.push(() => inf.stop());
    await inf.hasSynced();
    const listedAt = BigInt(inf.lastResourceVersion);
    // Writes elsewhere in the cluster move the global resourceVersion on.
    const other = await namespace();
    await admin.apply(fnObj(other, 'elsewhere'));
    await eventually('a bookmark', () => inf.stats.bookmarks > 0, 30_000);
    await eventually('a second watch', () => inf.stats.watches >= 2, 30_000);
    expect(BigInt(inf.lastResourceVersion)).toBeGreaterThan(listedAt);
    expect(inf.stats.lists).toBe(1);
    expect(events).toEqual(['ADDED only']);
  });
});
