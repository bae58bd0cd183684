/**
 * The Kubernetes resource store against a real API server: the shared store conformance suite,
 * then what only the wire shows (checked in the API server's audit log and stored objects).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { OrreryFunction } from '@orrery/spec';
import { type ResourceStore, type StoreError, type WatchEvent } from '@orrery/store';
import { describeStoreConformance } from '@orrery/store/testing';
import { adminKubeConfig, auditEvents, compactEtcd, createNamespace, eventually, installCrds, PartitionProxy, REPO_ROOT, restartApiServer } from '@orrery/kube-testenv';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';

const GV = 'orrery.dev/v1alpha1';
/** Namespaces the conformance suite writes to (Kubernetes needs them to exist). */
const SUITE_NAMESPACES = ['default', 'other', 'watch', 'elsewhere', 'old', 'labels'];

beforeAll(async () => {
  const kc = adminKubeConfig();
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
});

async function emptyNamespaces(names: string[]): Promise<void> {
  const kc = adminKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const client = new KubeClient(kc);
  for (const name of names) {
    await core.createNamespace({ body: { metadata: { name } } }).catch(() => undefined);
    for (const kind of ['Function', 'Revision', 'Environment']) {
      for (const o of (await client.list(GV, kind, name)).items) await client.delete(GV, kind, name, o.metadata.name);
    }
  }
}

describeStoreConformance('kubernetes CRDs on a real API server', async () => {
  await emptyNamespaces(SUITE_NAMESPACES);
  const store = createKubernetesResourceStore({ client: new KubeClient(adminKubeConfig()), rewatchMs: 50 });
  return {
    store,
    // The API server's watch cache still holds recent events after an etcd compaction; a
    // restart starts it afresh from the compacted store, as after a control-plane upgrade.
    forgetHistory: async () => {
      await compactEtcd();
      await restartApiServer();
    },
    cleanup: () => emptyNamespaces(SUITE_NAMESPACES.filter((n) => n !== 'default')),
  };
});

const fn = (name: string, namespace: string, inline = 'x') => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace, labels: { team: 'a' } },
  spec: { template: { source: { inline } } },
});

describe('KubernetesResourceStore on a real API server: the wire', () => {
  let ns: string;
  let dispose: () => Promise<void>;
  let store: ResourceStore;
  const audit = (verb: string, extra: (e: { requestURI: string; objectRef?: { subresource?: string; name?: string } }) => boolean = () => true) =>
    auditEvents((e) => e.verb === verb && e.objectRef?.namespace === ns && e.objectRef.resource === 'functions' && extra(e));
  beforeAll(async () => {
    ({ name: ns, dispose } = await createNamespace('store'));
    store = createKubernetesResourceStore({ client: new KubeClient(adminKubeConfig()), rewatchMs: 50 });
  });
  afterAll(async () => {
    await dispose();
  });

  it('applies with server-side apply as orrery-operator, not forced (users own these objects), the defaulted spec, and strips server fields on the way back', async () => {
    const out = (await store.apply(fn('wire', ns))) as OrreryFunction;
    const patch = audit('patch', (e) => e.objectRef?.name === 'wire').at(-1)!;
    const q = new URL(patch.requestURI, 'https://x').searchParams;
    expect([q.get('fieldManager'), q.get('force')]).toEqual(['orrery-operator', 'false']);
    expect(out.metadata).not.toHaveProperty('managedFields');
    const stored = (await new KubeClient(adminKubeConfig()).get<KubeObject>(GV, 'Function', ns, 'wire'))!;
    expect(stored.metadata.managedFields).toEqual(expect.arrayContaining([expect.objectContaining({ manager: 'orrery-operator', operation: 'Apply' })]));
    // The defaulted spec is what was applied, so the stored object matches the local store's.
    expect((stored.spec as { template: { executor: string } }).template.executor).toBe('deploy');
  });

  it('sends the optimistic resourceVersion inside the apply patch: a stale one is a conflict, and so is one for a missing object', async () => {
    const a = await store.apply(fn('rv', ns));
    await store.apply(fn('rv', ns, 'y'), { resourceVersion: a.metadata.resourceVersion });
    const err = (await store.apply(fn('rv', ns, 'z'), { resourceVersion: a.metadata.resourceVersion }).catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('conflict');
    const missing = (await store.apply(fn('rv-missing', ns), { resourceVersion: '12' }).catch((e: unknown) => e)) as StoreError;
    expect(missing.code).toBe('conflict');
    expect(await store.get('Function', ns, 'rv-missing')).toBeUndefined();
  });

  it('a field kubectl owns on a user’s Function is a conflict naming it and its owner; force takes it over', async () => {
    await store.apply(fn('owned', ns));
    const kc = adminKubeConfig();
    const admin = new KubeClient(kc);
    const cur = (await admin.get<KubeObject>(GV, 'Function', ns, 'owned'))!;
    await admin.objects.replace({ ...cur, metadata: { ...cur.metadata, labels: { team: 'kubectl-team' } } }, undefined, undefined, 'kubectl-edit');
    const err = (await store.apply(fn('owned', ns)).catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('conflict');
    expect(err.message).toContain('.metadata.labels.team (owned by "kubectl-edit")');
    expect(err.details).toEqual([{ path: 'metadata.labels.team', reason: 'field_manager_conflict', message: 'owned by field manager "kubectl-edit"' }]);
    expect((await store.get('Function', ns, 'owned'))!.metadata.labels).toEqual({ team: 'kubectl-team' });
    const forced = await store.apply(fn('owned', ns), { force: true });
    expect(forced.metadata.labels).toEqual({ team: 'a' });
  });

  it('writes status only through the status subresource', async () => {
    await store.apply(fn('st', ns));
    const before = auditEvents((e) => e.objectRef?.namespace === ns && e.objectRef.name === 'st' && e.verb !== 'get').length;
    await store.updateStatus('Function', ns, 'st', { observedGeneration: 1, url: 'http://st' });
    const writes = auditEvents((e) => e.objectRef?.namespace === ns && e.objectRef.name === 'st' && e.verb !== 'get').slice(before);
    expect(writes.map((e) => `${e.verb} ${e.objectRef!.subresource ?? ''}`)).toEqual(['patch status']);
  });

  it('last writer wins on status when the caller gives no resourceVersion: a real 409 (another writer in between) is retried', async () => {
    await store.apply(fn('st-retry', ns));
    // Another writer changes the object right before our conditional status apply, once.
    class RivalledClient extends KubeClient {
      rivals = 1;
      override async applyStatus(kind: string, namespace: string, name: string, status: unknown, opts: { resourceVersion?: string } = {}): Promise<KubeObject> {
        if (this.rivals-- > 0) await super.applyStatus(kind, namespace, name, { url: 'http://rival' });
        return super.applyStatus(kind, namespace, name, status, opts);
      }
    }
    const rivalled = createKubernetesResourceStore({ client: new RivalledClient(adminKubeConfig()), rewatchMs: 50 });
    const out = (await rivalled.updateStatus('Function', ns, 'st-retry', { observedGeneration: 1, url: 'http://r' })) as OrreryFunction;
    expect(out.status?.url).toBe('http://r');
    const statusWrites = audit('patch', (e) => e.objectRef?.name === 'st-retry' && e.objectRef.subresource === 'status');
    expect(statusWrites.map((e) => e.responseStatus?.code)).toEqual([200, 409, 200]);
  });

  it('deletes with a resourceVersion precondition', async () => {
    const a = await store.apply(fn('del', ns));
    await store.apply(fn('del', ns, 'changed'));
    const err = (await store.delete('Function', ns, 'del', { resourceVersion: a.metadata.resourceVersion }).catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('conflict');
    const cur = await store.get('Function', ns, 'del');
    expect(await store.delete('Function', ns, 'del', { resourceVersion: cur!.metadata.resourceVersion })).toBe(true);
    expect(await store.get('Function', ns, 'del')).toBeUndefined();
  });

  it('filters lists with a label selector on the server', async () => {
    await store.list('Function', { namespace: ns, labels: { team: 'a' } });
    const list = audit('list').at(-1)!;
    expect(new URL(list.requestURI, 'https://x').searchParams.get('labelSelector')).toBe('team=a');
  });

  it('resumes a watch whose connection dropped from the last version it delivered: no gap, no replay', async () => {
    const kc = adminKubeConfig();
    const proxy = await PartitionProxy.start(kc.getCurrentCluster()!.server);
    try {
      const viaProxy = createKubernetesResourceStore({ client: new KubeClient(proxy.kubeConfig(kc)), rewatchMs: 50 });
      const seen: WatchEvent[] = [];
      const w = viaProxy.watch('Function', { namespace: ns }, (e) => seen.push(e));
      await new Promise((r) => setTimeout(r, 500));
      await store.apply(fn('one', ns));
      await eventually('first event', () => seen.some((e) => e.object.metadata.name === 'one'));
      proxy.partition();
      await store.apply(fn('two', ns));
      await new Promise((r) => setTimeout(r, 300));
      proxy.heal();
      await eventually('second event', () => seen.some((e) => e.object.metadata.name === 'two'));
      await new Promise((r) => setTimeout(r, 300));
      expect(seen.filter((e) => ['one', 'two'].includes(e.object.metadata.name)).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['added one', 'added two']);
      w.close();
      await w.done.catch(() => undefined);
    } finally {
      await proxy.close();
    }
  });

  it('does not replay existing objects when watching from now', async () => {
    const { name: fresh, dispose: gone } = await createNamespace('fresh');
    try {
      await store.apply(fn('old', fresh));
      const seen: WatchEvent[] = [];
      const w = store.watch('Function', { namespace: fresh }, (e) => seen.push(e));
      await new Promise((r) => setTimeout(r, 500));
      await store.apply(fn('new', fresh));
      await eventually('the new object', () => seen.length >= 1);
      expect(seen.map((e) => e.object.metadata.name)).toEqual(['new']);
      w.close();
    } finally {
      await gone();
    }
  });
});
