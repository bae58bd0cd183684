import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeApiServer, startFakeApiServer } from './fake-apiserver.ts';

let api: FakeApiServer;
beforeAll(async () => {
  api = await startFakeApiServer();
});
afterAll(async () => {
  await api.close();
});

const cm = (name: string, data: Record<string, string>, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'fa', ...meta }, data });
async function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await fetch(api.url + path, { method, headers: { 'content-type': contentType }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('fake-apiserver wire behaviour', () => {
  it('serves discovery for the group versions the operator uses', async () => {
    const { status, body } = await call('GET', '/apis/orrery.dev/v1alpha1');
    expect(status).toBe(200);
    expect(body.resources).toContainEqual(expect.objectContaining({ name: 'functions', kind: 'Function', namespaced: true }));
    expect(body.resources).toContainEqual(expect.objectContaining({ name: 'functions/status' }));
    expect((await call('GET', '/apis/apps/v1')).body.resources).toContainEqual(expect.objectContaining({ name: 'deployments/scale' }));
  });

  it('apply needs a fieldManager; PUT with a stale resourceVersion is a 409', async () => {
    expect((await call('PATCH', '/api/v1/namespaces/fa/configmaps/a', cm('a', { k: 'v' }), 'application/apply-patch+yaml')).status).toBe(422);
    const created = await call('PATCH', '/api/v1/namespaces/fa/configmaps/a?fieldManager=m', cm('a', { k: 'v' }), 'application/apply-patch+yaml');
    expect(created.status).toBe(201);
    const rv = created.body.metadata.resourceVersion as string;
    const ok = await call('PUT', '/api/v1/namespaces/fa/configmaps/a', cm('a', { k: 'w' }, { resourceVersion: rv }));
    expect(ok.status).toBe(200);
    const stale = await call('PUT', '/api/v1/namespaces/fa/configmaps/a', cm('a', { k: 'x' }, { resourceVersion: rv }));
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect((await call('POST', '/api/v1/namespaces/fa/configmaps', cm('a', {}))).body.reason).toBe('AlreadyExists');
  });

  it('watch replays from a resourceVersion and answers 410 in-stream once compacted', async () => {
    const first = await call('PATCH', '/api/v1/namespaces/fa/configmaps/w1?fieldManager=m', cm('w1', {}), 'application/apply-patch+yaml');
    const since = first.body.metadata.resourceVersion as string;
    await call('PATCH', '/api/v1/namespaces/fa/configmaps/w2?fieldManager=m', cm('w2', {}), 'application/apply-patch+yaml');
    const ctl = new AbortController();
    const res = await fetch(`${api.url}/api/v1/namespaces/fa/configmaps?watch=true&resourceVersion=${since}`, { signal: ctl.signal });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('"name":"w2"');
    ctl.abort();
    api.compact();
    const gone = await (await fetch(`${api.url}/api/v1/namespaces/fa/configmaps?watch=true&resourceVersion=${since}`)).text();
    expect(JSON.parse(gone.trim())).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
  });

  it('delete with finalizers keeps the object until they are removed, then collects dependents', async () => {
    const owner = await call('PATCH', '/api/v1/namespaces/fa/configmaps/owner?fieldManager=m', cm('owner', {}, { finalizers: ['x/y'] }), 'application/apply-patch+yaml');
    const uid = owner.body.metadata.uid as string;
    await call('PATCH', '/api/v1/namespaces/fa/secrets/dep?fieldManager=m', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dep', namespace: 'fa', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid }] } }, 'application/apply-patch+yaml');
    const del = await call('DELETE', '/api/v1/namespaces/fa/configmaps/owner');
    expect(del.body.metadata.deletionTimestamp).toBeTruthy();
    expect(api.get('v1', 'ConfigMap', 'fa', 'owner')).toBeDefined();
    await call('PATCH', '/api/v1/namespaces/fa/configmaps/owner', { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(api.get('v1', 'ConfigMap', 'fa', 'owner')).toBeUndefined();
    expect(api.get('v1', 'Secret', 'fa', 'dep')).toBeUndefined();
  });

  it('a manager that stops applying a field removes it unless another manager owns it', async () => {
    await call('PATCH', '/api/v1/namespaces/fa/configmaps/own?fieldManager=a', cm('own', { x: '1', y: '2' }), 'application/apply-patch+yaml');
    await call('PATCH', '/api/v1/namespaces/fa/configmaps/own?fieldManager=b', cm('own', { y: '2' }), 'application/apply-patch+yaml');
    const after = await call('PATCH', '/api/v1/namespaces/fa/configmaps/own?fieldManager=a', cm('own', {}), 'application/apply-patch+yaml');
    expect(after.body.data).toEqual({ y: '2' }); // x dropped; y still owned by b
    expect((after.body.metadata.managedFields as Array<{ manager: string }>).map((m) => m.manager).sort()).toEqual(['a', 'b']);
  });
});
