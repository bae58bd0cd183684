/**
 * The webhook's read-through against the real API server: what its informers miss is read with
 * the operator's client (an Environment, the namespace's Functions), and an operator that watches
 * one namespace reads nothing outside it. The caches here are empty, as an informer is in the
 * moment after a create it has not seen yet.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type AdmissionRequest, validateAdmission } from '../../../webhook/admission.ts';
import { decideReadingThrough } from '../../../webhook/read-through-lookup.ts';
import type { KubeClient } from '../kube-client.ts';
import { operatorKubeSuite } from '../testing/operator-kube-suite.ts';
import { apiServerAdmissionSource } from './api-server-admission-source.ts';

const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
let client: KubeClient;
beforeAll(() => void (client = kube.client));

const emptyCache = { environment: () => undefined, keyspaceHolders: () => [] };
const review = (namespace: string, name: string, spec: Record<string, unknown>): AdmissionRequest => ({
  uid: name,
  kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Function' },
  operation: 'CREATE',
  namespace,
  name,
  object: { apiVersion: GV, kind: 'Function', metadata: { name }, spec },
});
const reasons = (r: { status?: { details?: { causes: Array<{ reason: string }> } } }) => r.status?.details?.causes.map((c) => c.reason) ?? [];

describe('webhook reads from the API server what its informers miss', () => {
  it('refuses a Function on an infinite Environment and on a taken keyspace, created a moment ago', { timeout: 60_000 }, async () => {
    const ns = await kube.freshNs('admsrc');
    await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'shared-infinite', namespace: ns }, spec: { allowedFunctionsPerContainer: 'infinite' } });
    await client.apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'owner', namespace: ns }, spec: { template: { source: { inline: 'x' } }, state: { keyspace: 'carts' } } });
    const source = apiServerAdmissionSource(client);
    const onInfinite = await decideReadingThrough(validateAdmission, review(ns, 'stateful', { template: { environment: 'shared-infinite', source: { inline: 'x' } }, state: {} }), emptyCache, source);
    expect(reasons(onInfinite)).toEqual(['state_environment_infinite']);
    const second = await decideReadingThrough(validateAdmission, review(ns, 'second', { template: { source: { inline: 'x' } }, state: { keyspace: 'carts' } }), emptyCache, source);
    expect(reasons(second)).toEqual(['state_keyspace_taken']);
    expect(second.status?.message).toContain(`belongs to Function ${ns}/owner`);
    const free = await decideReadingThrough(validateAdmission, review(ns, 'third', { template: { source: { inline: 'x' } }, state: { keyspace: 'orders' } }), emptyCache, source);
    expect(free.allowed).toBe(true);

    // Watching one namespace: nothing is read outside it.
    const elsewhere = apiServerAdmissionSource(client, `${ns}-other`);
    expect(await elsewhere.environment!(ns, 'shared-infinite')).toBeUndefined();
    expect(await elsewhere.functions!(ns)).toEqual([]);
    expect((await decideReadingThrough(validateAdmission, review(ns, 'second', { template: { source: { inline: 'x' } }, state: { keyspace: 'carts' } }), emptyCache, elsewhere)).allowed).toBe(true);
    // The namespace it watches is read as before.
    expect((await apiServerAdmissionSource(client, ns).environment!(ns, 'shared-infinite'))?.spec.allowedFunctionsPerContainer).toBe('infinite');
  });
});
