import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import type { OrreryFunction } from '@orrery/spec';
import { type ResourceStore, StoreError, type WatchEvent } from '@orrery/store';
import { describeStoreConformance } from '@orrery/store/testing';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';
import { storeErrorFrom } from './store-errors.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';

async function openOnFake(): Promise<{ api: FakeApiServer; store: ResourceStore }> {
  const api = await startFakeApiServer();
  const store = createKubernetesResourceStore({ client: new KubeClient(kubeConfigFor({ server: api.url })), rewatchMs: 50 });
  return { api, store };
}

describeStoreConformance(
  'kubernetes CRDs on the fake-apiserver',
  async () => {
    const { api, store } = await openOnFake();
    return { store, forgetHistory: () => api.compact(), cleanup: () => api.close() };
  },
);

const fn = (name: string, inline = 'x', namespace = 'default') => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace, labels: { team: 'a' } },
  spec: { template: { source: { inline } } },
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

describe('KubernetesResourceStore on the fake-apiserver: the wire', () => {
  let api: FakeApiServer;
  let store: ResourceStore;
  beforeAll(async () => {
    ({ api, store } = await openOnFake());
  });
  afterAll(async () => {
    await api.close();
  });

  it('applies with server-side apply as orrery-operator (apply content type, force) and strips server fields on the way back', async () => {
    api.requests.length = 0;
    const out = (await store.apply(fn('wire'))) as OrreryFunction;
    const patch = api.requests.find((r) => r.method === 'PATCH' && r.path === '/apis/orrery.dev/v1alpha1/namespaces/default/functions/wire')!;
    expect(patch.contentType).toBe('application/apply-patch+yaml');
    expect(patch.query).toMatchObject({ fieldManager: 'orrery-operator', force: 'true' });
    // the defaulted spec is what is applied, so the stored object matches the local store's
    expect(JSON.parse(patch.body).spec.template.executor).toBe('deploy');
    expect(out.metadata).not.toHaveProperty('managedFields');
    expect(api.get('orrery.dev/v1alpha1', 'Function', 'default', 'wire')!.metadata.managedFields).toEqual(
      expect.arrayContaining([expect.objectContaining({ manager: 'orrery-operator', operation: 'Apply' })]),
    );
  });

  it('sends the optimistic resourceVersion inside the apply patch and maps the 409 to conflict', async () => {
    const a = await store.apply(fn('rv'));
    api.requests.length = 0;
    await store.apply(fn('rv', 'y'), { resourceVersion: a.metadata.resourceVersion });
    expect(JSON.parse(api.requests.find((r) => r.method === 'PATCH')!.body).metadata.resourceVersion).toBe(a.metadata.resourceVersion);
    const err = (await store.apply(fn('rv', 'z'), { resourceVersion: a.metadata.resourceVersion }).catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('conflict');
    const missing = (await store.apply(fn('rv-missing'), { resourceVersion: '12' }).catch((e: unknown) => e)) as StoreError;
    expect(missing.code).toBe('conflict');
    expect(await store.get('Function', 'default', 'rv-missing')).toBeUndefined();
  });

  it('writes status only through the status subresource', async () => {
    await store.apply(fn('st'));
    api.requests.length = 0;
    await store.updateStatus('Function', 'default', 'st', { observedGeneration: 1, url: 'http://st' });
    const writes = api.requests.filter((r) => r.method !== 'GET');
    expect(writes.map((r) => r.path)).toEqual(['/apis/orrery.dev/v1alpha1/namespaces/default/functions/st/status']);
    expect(writes[0]!.contentType).toBe('application/apply-patch+yaml');
  });

  it('last writer wins on status when the caller gives no resourceVersion (a 409 is retried)', async () => {
    await store.apply(fn('st-retry'));
    api.failNext('PATCH', '/functions/st-retry/status', 409, 'Conflict');
    const out = (await store.updateStatus('Function', 'default', 'st-retry', { observedGeneration: 1, url: 'http://r' })) as OrreryFunction;
    expect(out.status?.url).toBe('http://r');
  });

  it('deletes with a resourceVersion precondition', async () => {
    const a = await store.apply(fn('del'));
    await store.apply(fn('del', 'changed'));
    const err = (await store.delete('Function', 'default', 'del', { resourceVersion: a.metadata.resourceVersion }).catch((e: unknown) => e)) as StoreError;
    expect(err.code).toBe('conflict');
    const cur = await store.get('Function', 'default', 'del');
    expect(await store.delete('Function', 'default', 'del', { resourceVersion: cur!.metadata.resourceVersion })).toBe(true);
    expect(await store.get('Function', 'default', 'del')).toBeUndefined();
  });

  it('filters lists with a label selector on the server', async () => {
    api.requests.length = 0;
    await store.list('Function', { namespace: 'default', labels: { team: 'a' } });
    expect(api.requests.find((r) => r.method === 'GET' && r.path.endsWith('/functions'))!.query.labelSelector).toBe('team=a');
  });

  it('resumes a watch the API server closed from the last version it delivered: no gap, no replay', async () => {
    const seen: WatchEvent[] = [];
    const w = store.watch('Function', { namespace: 'resume' }, (e) => seen.push(e));
    await until(() => api.watchCount, (n) => n >= 1);
    await store.apply(fn('one', 'x', 'resume'));
    await until(() => seen.length, (n) => n >= 1);
    api.dropWatches();
    await store.apply(fn('two', 'x', 'resume'));
    await until(() => seen.length, (n) => n >= 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['added one', 'added two']);
    w.close();
    await w.done;
  });

  it('does not replay existing objects when watching from now', async () => {
    await store.apply(fn('old', 'x', 'fresh'));
    const seen: WatchEvent[] = [];
    const w = store.watch('Function', { namespace: 'fresh' }, (e) => seen.push(e));
    await until(() => api.watchCount, (n) => n >= 1);
    await store.apply(fn('new', 'x', 'fresh'));
    await until(() => seen.length, (n) => n >= 1);
    expect(seen.map((e) => e.object.metadata.name)).toEqual(['new']);
    w.close();
  });
});

describe('Kubernetes API errors as StoreErrors', () => {
  const apiError = (code: number, body: object) => new ApiException(code, 'failed', JSON.stringify(body), {});
  it.each([
    [404, 'not_found'],
    [409, 'conflict'],
    [410, 'expired'],
    [422, 'invalid'],
    [500, 'unavailable'],
    [503, 'unavailable'],
  ] as const)('%i → %s', (code, want) => {
    expect(storeErrorFrom(apiError(code, { message: 'm' }), 'Function default/x').code).toBe(want);
  });

  it('keeps the API server validation causes as details', () => {
    const err = storeErrorFrom(apiError(422, { message: 'bad', details: { causes: [{ field: '.spec.template', message: 'Required value' }] } }), 'Function default/x');
    expect(err.details).toEqual([{ path: 'spec.template', reason: 'invalid', message: 'Required value' }]);
  });

  it('tells an admission denial (invalid) from an RBAC refusal (unavailable)', () => {
    expect(storeErrorFrom(apiError(403, { message: 'admission webhook "validate.orrery.dev" denied the request: bad' }), 'x').code).toBe('invalid');
    expect(storeErrorFrom(apiError(403, { message: 'functions.orrery.dev is forbidden' }), 'x').code).toBe('unavailable');
  });

  it('a vanished object under a resourceVersion precondition is a conflict', () => {
    expect(storeErrorFrom(apiError(404, { message: 'gone' }), 'x', { precondition: '7' }).code).toBe('conflict');
  });

  it('a network failure is unavailable (a port number in the message is no status)', () => {
    expect(storeErrorFrom(new Error('connect ECONNREFUSED 127.0.0.1:410'), 'x').code).toBe('unavailable');
  });

  it("reads the status of client-node's watch errors", () => {
    expect(storeErrorFrom(Object.assign(new Error('Gone'), { statusCode: 410 }), 'x').code).toBe('expired');
  });
});
