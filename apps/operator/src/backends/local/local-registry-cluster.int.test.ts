/**
 * RegistryCluster on the local backend with real etcd processes and a real orrery-registry:
 * 3 → 5 → 3 with an independent quorum monitor, a leader-transfer request, and the replacement
 * of a member whose machine is gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection } from '@orrery/db';
import { waitFor } from '@orrery/etcdcluster';
import { LEARNER_PROMOTION_RULE, quorumOf, type RegistryCluster } from '@orrery/spec';
import { createLocalStore, type ResourceStore } from '@orrery/store';
import { memberList, memberStatus } from '../../registry-cluster/observe-cluster.ts';
import type { MembershipStep, ObservedMember } from '../../registry-cluster/plan-membership.ts';
import { REQUESTS_ANNOTATION, type ClusterRequest } from '../../registry-cluster/plan-request.ts';
import { RegistryClusterReconciler } from '../../registry-cluster/registry-cluster-reconciler.ts';
import { LocalRegistryClusterBackend } from './local-registry-cluster-backend.ts';

const NS = 'default';
const NAME = 'reg';

let conn: Connection;
let store: ResourceStore;
let dataDir: string;
let reconciler: RegistryClusterReconciler;
const steps: Array<{ step: MembershipStep | { kind: 'request'; request: ClusterRequest }; members: ObservedMember[]; leaderRaftIndex?: number }> = [];
const violations: string[] = [];
const reportedEndpoints: Array<[string, string | undefined]> = [];
let monitor: NodeJS.Timeout | undefined;
/** A step etcd refused (e.g. "unhealthy cluster" right after a change) is planned again: count it once. */
const dedupe = (a: string[]) => a.filter((x, i) => x !== a[i - 1]);

async function current(): Promise<RegistryCluster> {
  return (await store.get('RegistryCluster', NS, NAME)) as RegistryCluster;
}

async function applySpec(patch: Partial<RegistryCluster['spec']>, annotations?: Record<string, string>): Promise<void> {
  const rc = await current();
  await store.apply({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'RegistryCluster',
    metadata: { namespace: NS, name: NAME, annotations: annotations ?? rc.metadata.annotations },
    spec: { ...rc.spec, ...patch },
  });
}

/** Waits until status shows exactly `n` healthy voters named reg-1..reg-n-ish, no learner, a leader. */
async function waitForVoters(names: string[], timeoutMs: number): Promise<RegistryCluster> {
  return waitFor(`voters ${names.join(',')}`, timeoutMs, async () => {
    const rc = await current();
    const ms = rc.status?.members ?? [];
    const voters = ms.filter((m) => m.role === 'voter' && m.health === 'healthy').map((m) => m.name).sort();
    const ok = ms.length === names.length && voters.join() === [...names].sort().join() && !!rc.status?.leader;
    return ok ? rc : undefined;
  }, undefined, 300);
}

/** Independent of the reconciler: asks etcd directly whether a healthy quorum of voters exists. */
async function checkQuorum(): Promise<void> {
  const urls = reconciler.clientURLs(NS, NAME);
  const list = await memberList(urls);
  if (!list) return; // between steps no member may answer for an instant; the status checks catch real outages
  const voters = list.filter((m) => !m.isLearner);
  const healthy = (await Promise.all(voters.map((v) => (v.clientURL ? memberStatus(v.clientURL) : Promise.resolve(undefined))))).filter(Boolean).length;
  if (healthy < quorumOf(voters.length)) violations.push(`${healthy} of ${voters.length} voters healthy (${voters.map((v) => v.name).join(',')})`);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'orrery-rc-'));
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
  reconciler = new RegistryClusterReconciler({
    store,
    backend: new LocalRegistryClusterBackend({ dataDir }),
    intervalMs: 700,
    onEndpoint: (key, url) => reportedEndpoints.push([key, url]),
    onStep: (_key, step, members, leaderRaftIndex) => steps.push({ step, members: structuredClone(members), leaderRaftIndex }),
  });
  await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { namespace: NS, name: NAME }, spec: { replicas: 3 } });
  await reconciler.start();
}, 90_000);

afterAll(async () => {
  clearInterval(monitor);
  await reconciler?.stop();
  expect(reconciler.processes().filter((p) => p.running)).toEqual([]);
  await store?.close();
  await conn?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('RegistryCluster (local backend, real etcd)', () => {
  it('bootstraps 3 members with the registry API beside them', { timeout: 60_000 }, async () => {
    const rc = await waitFor('an endpoint in status', 45_000, async () => {
      const r = await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 45_000);
      return r.status?.endpoint ? r : undefined;
    }, undefined, 300);
    expect(rc.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
    const healthz = await fetch(`${rc.status!.endpoint!}/healthz`);
    expect(healthz.status).toBe(200);
    // The operator follows the registry URL through this callback (orrery up's platform registry).
    expect(reportedEndpoints.at(-1)).toEqual([`${NS}/${NAME}`, rc.status!.endpoint]);
    expect(rc.status?.members?.every((m) => m.raftTerm! > 0 && m.raftIndex! > 0 && m.dbSize! > 0 && /^[0-9a-f]+$/.test(m.id))).toBe(true);
  });

  it('scales 3 → 5 → 3 one safe step at a time', { timeout: 120_000 }, async () => {
    monitor = setInterval(() => void checkQuorum().catch((err: unknown) => violations.push(String(err))), 400);
    steps.length = 0;
    const seenProgress: string[] = [];
    await applySpec({ replicas: 5 });
    await waitFor('5 voters', 60_000, async () => {
      const rc = await current();
      const p = rc.status?.conditions?.find((c) => c.type === 'Progressing');
      if (p?.status === 'True') seenProgress.push(p.message ?? '');
      const ms = rc.status?.members ?? [];
      return ms.length === 5 && ms.every((m) => m.role === 'voter' && m.health === 'healthy') ? true : undefined;
    }, undefined, 200);
    await applySpec({ replicas: 3 });
    await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 60_000);
    clearInterval(monitor);
    monitor = undefined;

    const kinds = dedupe(steps.map((s) => ('member' in s.step ? `${s.step.kind}:${s.step.member}` : 'name' in s.step ? `${s.step.kind}:${s.step.name}` : s.step.kind)));
    // Additions are queued: reg-5 is added only after reg-4 was promoted.
    expect(kinds.indexOf('add-learner:reg-4')).toBeLessThan(kinds.indexOf('promote:reg-4'));
    expect(kinds.indexOf('promote:reg-4')).toBeLessThan(kinds.indexOf('add-learner:reg-5'));
    expect(kinds.indexOf('add-learner:reg-5')).toBeLessThan(kinds.indexOf('promote:reg-5'));
    // Scale-down: highest ordinal first, one voter at a time.
    const removals = kinds.filter((k) => k.startsWith('remove:'));
    expect(removals).toEqual(['remove:reg-5', 'remove:reg-4']);
    for (const s of steps) {
      if (s.step.kind === 'promote') {
        const learner = s.members.find((m) => m.name === (s.step as { member: string }).member)!;
        expect(learner.role).toBe('learner');
        expect(learner.healthy).toBe(true);
        expect(s.leaderRaftIndex! - learner.raftAppliedIndex!).toBeLessThanOrEqual(LEARNER_PROMOTION_RULE.maxLagEntries);
      }
      if (s.step.kind === 'add-learner') expect(s.members.filter((m) => m.role === 'learner')).toEqual([]);
      if (s.step.kind === 'remove') {
        const rest = s.members.filter((m) => m.role === 'voter' && m.name !== (s.step as { member: string }).member);
        expect(rest.filter((m) => m.healthy).length).toBeGreaterThanOrEqual(quorumOf(rest.length));
      }
    }
    expect(violations).toEqual([]);
    expect(seenProgress.some((m) => /adding learner reg-[45]|promoting learner|removing voter/.test(m))).toBe(true);
  });

  it('runs a leader-transfer request once and acknowledges it', { timeout: 60_000 }, async () => {
    const before = await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 30_000);
    const target = ['reg-1', 'reg-2', 'reg-3'].find((n) => n !== before.status!.leader)!;
    await applySpec({}, { [REQUESTS_ANNOTATION]: JSON.stringify([{ id: 'move-1', action: 'transfer-leader', member: target }]) });
    const rc = await waitFor('the request acknowledged and the new leader in status', 30_000, async () => {
      const r = await current();
      return r.status?.lastRequest?.id === 'move-1' && r.status.leader === target ? r : undefined;
    }, undefined, 300);
    expect(rc.status?.lastRequest).toMatchObject({ action: 'transfer-leader', outcome: 'succeeded', member: target });
    expect(rc.status?.handledRequests).toContain('move-1');
    expect(rc.status?.conditions?.find((c) => c.type === 'RequestHandled')?.status).toBe('True');
    // Spec untouched by the request; the request ran exactly once.
    expect(rc.spec.replicas).toBe(3);
    expect(steps.filter((s) => s.step.kind === 'request').length).toBe(1);
  });

  it('one-click membership: add-learner holds a learner on top of spec.replicas until promote; remove takes it out', { timeout: 90_000 }, async () => {
    await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 30_000);
    const request = async (id: string, action: string, member?: string) => {
      const prev = (await current()).metadata.annotations?.[REQUESTS_ANNOTATION];
      const list = [...(prev ? (JSON.parse(prev) as unknown[]) : []), { id, action, ...(member ? { member } : {}) }];
      await applySpec({}, { [REQUESTS_ANNOTATION]: JSON.stringify(list) });
      return waitFor(`request ${id} handled`, 40_000, async () => {
        const r = await current();
        return r.status?.lastRequest?.id === id ? r : undefined;
      }, undefined, 300);
    };
    const added = await request('add-1', 'add-learner');
    expect(added.status?.lastRequest).toMatchObject({ outcome: 'succeeded', message: expect.stringMatching(/reg-4 .*until you promote/) as unknown });
    // Held: still a learner several passes later, even though it caught up long ago.
    await new Promise((r) => setTimeout(r, 4_000));
    let rc = await current();
    expect(rc.status?.members?.find((m) => m.name === 'reg-4')?.role).toBe('learner');
    expect(rc.status?.manualMembers).toEqual(['reg-4']);
    expect((await request('add-2', 'add-learner')).status?.lastRequest).toMatchObject({ outcome: 'rejected', message: expect.stringMatching(/one learner at a time/) as unknown });

    const promoted = await request('promote-1', 'promote', 'reg-4');
    expect(promoted.status?.lastRequest?.outcome, promoted.status?.lastRequest?.message).toBe('succeeded');
    rc = await waitForVoters(['reg-1', 'reg-2', 'reg-3', 'reg-4'], 20_000);
    // Four voters with spec.replicas 3: the request-added voter is kept, not scaled away.
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await current()).status?.members?.filter((m) => m.role === 'voter')).toHaveLength(4);

    const removed = await request('remove-1', 'remove', 'reg-4');
    expect(removed.status?.lastRequest?.outcome, removed.status?.lastRequest?.message).toBe('succeeded');
    rc = await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 30_000);
    expect(rc.status?.manualMembers).toBeUndefined();
    // Membership changes restart the registry API on the port it first bound: one URL throughout.
    expect(new Set(reportedEndpoints.map(([, u]) => u).filter(Boolean)).size).toBe(1);
    expect(rc.spec.replicas).toBe(3);
  });

  it('replaces a member whose machine is gone after replaceUnhealthyAfter', { timeout: 90_000 }, async () => {
    await applySpec({ replaceUnhealthyAfter: '3s' }, {});
    const before = await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 30_000);
    const victim = ['reg-1', 'reg-2', 'reg-3'].find((n) => n !== before.status!.leader)!;
    const oldId = before.status!.members!.find((m) => m.name === victim)!.id;
    steps.length = 0;
    await reconciler.failMember(NS, NAME, victim);
    await waitFor('the victim reported unhealthy', 20_000, async () => {
      const r = await current();
      const d = r.status?.conditions?.find((c) => c.type === 'Degraded');
      return d?.status === 'True' && d.message?.includes(victim) ? true : undefined;
    }, undefined, 200);
    const rc = await waitFor(`${victim} replaced by a new member`, 60_000, async () => {
      const r = await current();
      const m = r.status?.members?.find((x) => x.name === victim);
      const ok = r.status?.members?.length === 3 && m && m.id !== oldId && r.status.members.every((x) => x.role === 'voter' && x.health === 'healthy');
      return ok ? r : undefined;
    }, undefined, 300);
    expect(rc.status?.conditions?.find((c) => c.type === 'Degraded')?.status).toBe('False');
    const kinds = dedupe(steps.map((s) => s.step.kind));
    expect(kinds.slice(0, 3)).toEqual(['remove', 'add-learner', 'promote']);
    expect(steps[0]!.step).toMatchObject({ kind: 'remove', reason: 'replace', member: victim });
  });

  it('brings the same members back from their data dirs after an operator restart', { timeout: 60_000 }, async () => {
    const before = await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 30_000);
    const ids = Object.fromEntries(before.status!.members!.map((m) => [m.name, m.id]));
    await reconciler.stop();
    expect(reconciler.processes().filter((p) => p.running)).toEqual([]);
    reconciler = new RegistryClusterReconciler({ store, backend: new LocalRegistryClusterBackend({ dataDir }), intervalMs: 700 });
    await reconciler.start();
    const after = await waitFor('the same three members healthy again', 45_000, async () => {
      const r = await current();
      const ms = r.status?.members ?? [];
      const ok = ms.length === 3 && ms.every((m) => m.health === 'healthy' && ids[m.name] === m.id) && !!r.status?.leader;
      return ok ? r : undefined;
    }, undefined, 300);
    expect(after.status?.members?.map((m) => m.name).sort()).toEqual(['reg-1', 'reg-2', 'reg-3']);
  });
});
