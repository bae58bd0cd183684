/**
 * Leader election on a real coordination.k8s.io/v1 Lease: one leader among two operators,
 * failover after a crash only once the lease expires, stepping down when renewals are refused
 * (a real RBAC refusal: the candidate's RoleBinding is taken away), and a graceful stop that
 * hands the lease over at once. The fakes accepted Lease times the API server refuses.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RbacAuthorizationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { adminKubeConfig, eventually, serviceAccountKubeConfig } from '@orrery/kube-testenv';
import { ElectedOperator } from './elected-operator.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { LeaderElector } from './leader-election.ts';

const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
const cleanups = kube.cleanups;
let client: KubeClient;
beforeAll(() => void (client = kube.client));

const freshNs = () => kube.freshNs('lease');
const leaseSpec = async (ns: string, name: string) =>
  ((await client.get<KubeObject>('coordination.k8s.io/v1', 'Lease', ns, name))?.spec ?? {}) as { holderIdentity?: string; leaseTransitions?: number; renewTime?: string };

describe('leader election on a real Lease', () => {
  it('two operators elect exactly one leader; after a crash the other takes over only once the lease expires', { timeout: 60_000 }, async () => {
    const ns = await freshNs();
    const election = { namespace: ns, name: 'orrery-operator', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 };
    const a = new ElectedOperator({ client, namespace: ns, election: { ...election, identity: 'a' } });
    const b = new ElectedOperator({ client, namespace: ns, election: { ...election, identity: 'b' } });
    cleanups.push(() => a.stop({ release: false }), () => b.stop({ release: false }));
    let both = 0;
    const sampler = setInterval(() => {
      if (a.isLeader && b.isLeader) both++;
    }, 20);
    cleanups.push(() => clearInterval(sampler));
    a.start();
    b.start();
    const first = await eventually('a leader', () => (a.isLeader ? a : b.isLeader ? b : undefined), 20_000, 20);
    const second = first === a ? b : a;
    await new Promise((r) => setTimeout(r, 2000)); // several renewals
    expect(first.isLeader).toBe(true);
    expect(second.isLeader).toBe(false);
    const spec = await leaseSpec(ns, 'orrery-operator');
    expect(spec.holderIdentity).toBe(first === a ? 'a' : 'b');
    // MicroTime, as client-go writes it.
    expect(spec.renewTime).toMatch(/\.\d{6}Z$/);
    await client.apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'elected', namespace: ns }, spec: { template: { source: { inline: 'x' } } } });
    await eventually('revision by the leader', () => client.get(GV, 'Revision', ns, 'elected-00001'));
    const crashedAt = Date.now();
    await first.stop({ release: false });
    await eventually('failover', () => second.isLeader, 20_000, 20);
    expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(2000);
    expect(second.terms).toBe(1);
    expect((await leaseSpec(ns, 'orrery-operator')).leaseTransitions).toBe(1);
    await client.apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'after-failover', namespace: ns }, spec: { template: { source: { inline: 'x' } } } });
    await eventually('the new leader acts', () => client.get(GV, 'Revision', ns, 'after-failover-00001'));
    expect(both).toBe(0);
  });

  it('a leader whose renewals are refused (its RoleBinding removed) steps down; given back, it leads again; a graceful stop releases at once', { timeout: 60_000 }, async () => {
    const ns = await freshNs();
    const kc = adminKubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'candidate' } } });
    await rbac.createNamespacedRole({
      namespace: ns,
      body: { metadata: { name: 'leases' }, rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }] },
    });
    const binding = { metadata: { name: 'candidate-leases' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' }, subjects: [{ kind: 'ServiceAccount', name: 'candidate', namespace: ns }] };
    await rbac.createNamespacedRoleBinding({ namespace: ns, body: binding });
    const asCandidate = new KubeClient(await serviceAccountKubeConfig(kc, ns, 'candidate'));
    const log: string[] = [];
    const mk = (c: KubeClient, identity: string) =>
      new LeaderElector(c, {
        namespace: ns,
        name: 'l',
        identity,
        leaseDurationMs: 3000,
        renewDeadlineMs: 1500,
        retryPeriodMs: 200,
        onStartedLeading: () => void log.push(`${identity} up`),
        onStoppedLeading: () => void log.push(`${identity} down`),
      });
    const a = mk(asCandidate, 'a');
    a.start();
    cleanups.push(() => a.stop({ release: false }));
    await eventually('a leads', () => a.isLeader, 20_000, 50);
    await rbac.deleteNamespacedRoleBinding({ namespace: ns, name: 'candidate-leases' });
    await eventually('a steps down', () => !a.isLeader, 20_000, 50);
    expect(log).toEqual(['a up', 'a down']);
    await rbac.createNamespacedRoleBinding({ namespace: ns, body: binding });
    await eventually('a leads again', () => a.isLeader, 20_000, 50);
    await a.stop();
    expect((await leaseSpec(ns, 'l')).holderIdentity ?? '').toBe('');
    const b = mk(client, 'b');
    const start = Date.now();
    b.start();
    cleanups.push(() => b.stop({ release: false }));
    await eventually('b leads after the release', () => b.isLeader, 10_000, 20);
    expect(Date.now() - start).toBeLessThan(1500); // released: no wait for expiry
  });
});
