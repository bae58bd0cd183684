/**
 * Promotion only when caught up, on real etcd (issue 21 item 3): a learner paused with SIGSTOP
 * while thousands of writes go to the leader is not promoted while it is far behind; once resumed
 * it is promoted only after two consecutive polls that saw it healthy and within 100 entries of
 * the leader's committed index under one leader. Local backend, no registry API (membership only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection } from '@orrery/db';
import { noRetryClient, waitFor } from '@orrery/etcdcluster';
import { LEARNER_PROMOTION_RULE, observationBlocker, type RegistryCluster } from '@orrery/spec';
import { createLocalStore, type ResourceStore, type Watch } from '@orrery/store';
import type { MembershipStep, ObservedMember } from '../../registry-cluster/plan-membership.ts';
import type { ClusterRequest } from '../../registry-cluster/plan-request.ts';
import { RegistryClusterReconciler } from '../../registry-cluster/registry-cluster-reconciler.ts';
import { LocalRegistryClusterBackend, type LocalPlacement } from './local-registry-cluster-backend.ts';

const NS = 'default';
const NAME = 'lag';
const LEARNER = 'lag-2';
const POLL_MS = 500;

type Status = NonNullable<RegistryCluster['status']>;
/** Status writes and planned steps, in the order they happened. */
type Event =
  | { kind: 'status'; status: Status }
  | { kind: 'step'; step: MembershipStep | { kind: 'request'; request: ClusterRequest }; members: ObservedMember[]; leaderRaftIndex?: number };

let conn: Connection;
let store: ResourceStore;
let dataDir: string;
let reconciler: RegistryClusterReconciler;
let watch: Watch | undefined;
const events: Event[] = [];
/** The reconciler's last log lines and the backend's members (their etcd stderr tails), for a wait that timed out. */
const operatorLog: string[] = [];
let placement: LocalPlacement | undefined;

const current = async () => (await store.get('RegistryCluster', NS, NAME)) as RegistryCluster;
const roleOf = (s: Status | undefined, name: string) => s?.members?.find((m) => m.name === name)?.role;
/** What the last status and steps said, for a wait that timed out. */
const explainCluster = () => {
  const last = events.filter((e): e is Extract<Event, { kind: 'status' }> => e.kind === 'status').at(-1)?.status;
  const steps = events.filter((e) => e.kind === 'step').slice(-5).map((e) => JSON.stringify((e).step));
  const logs = reconciler.processes().map((p) => `${p.member} running=${p.running}`);
  const etcdTails = (placement?.members.list() ?? []).map((m) => `--- ${m.name} (etcd stderr, last lines)\n${m.logTail.slice(-8).join('\n')}`);
  return (
    JSON.stringify({ members: last?.members, conditions: last?.conditions, learnerObservations: last?.learnerObservations }, null, 1) +
    `\nsteps:\n${steps.join('\n')}\nprocesses: ${logs.join(', ')}\noperator log:\n${operatorLog.slice(-25).join('\n')}\n${etcdTails.join('\n')}`
  );
};
const leaderIndexOf = (s: Status) => s.members?.find((m) => m.isLeader)?.raftIndex;

/** `n` puts to the voter at `url`, `parallel` at a time: each is one raft entry. */
async function write(url: string, n: number, parallel = 16, tag = 'k'): Promise<void> {
  const client = noRetryClient(url, 10_000);
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < n) {
          const i = next++;
          await client.put(`/catch-up/${tag}/${i}`).value(`v${i}`);
        }
      }),
    );
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'orrery-rc-lag-'));
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
  watch = store.watch('RegistryCluster', {}, (e) => {
    const rc = e.object as RegistryCluster;
    if (e.type !== 'deleted' && rc.metadata.name === NAME && rc.status) events.push({ kind: 'status', status: structuredClone(rc.status) });
  });
  const backend = new LocalRegistryClusterBackend({ dataDir, registryApi: false });
  const open = backend.open.bind(backend);
  backend.open = (rc, log) => (placement = open(rc, log));
  reconciler = new RegistryClusterReconciler({
    store,
    backend,
    log: (msg, fields) => {
      operatorLog.push(`${new Date().toISOString().slice(11, 23)} ${msg} ${JSON.stringify(fields ?? {})}`);
      if (operatorLog.length > 200) operatorLog.splice(0, 100);
    },
    intervalMs: POLL_MS,
    onStep: (_key, step, members, leaderRaftIndex) => events.push({ kind: 'step', step, members: structuredClone(members), leaderRaftIndex }),
  });
  await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { namespace: NS, name: NAME }, spec: { replicas: 1 } });
  await reconciler.start();
}, 90_000);

afterAll(async () => {
  watch?.close();
  await reconciler?.stop();
  await store?.close();
  await conn?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('learner promotion waits until the learner has caught up (real etcd)', () => {
  it('a learner paused while writes continue is not promoted until it catches up, then it is', { timeout: 240_000 }, async () => {
    const boot = await waitFor('one healthy voter', 45_000, async () => {
      const s = (await current()).status;
      return s?.members?.length === 1 && s.members[0]!.health === 'healthy' && s.leader ? s : undefined;
    }, explainCluster, 200);
    const voterURL = boot.members![0]!.clientURL!;

    // Grow to 3 voters: the planner adds LEARNER first. Pause it the moment its process runs.
    const rc = await current();
    await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { namespace: NS, name: NAME }, spec: { ...rc.spec, replicas: 3 } });
    await waitFor(`${LEARNER}'s process`, 30_000, async () => (reconciler.processes().some((p) => p.member === LEARNER && p.running) ? true : undefined), undefined, 10);
    reconciler.pauseMember(NS, NAME, LEARNER);

    // Far behind: thousands of entries while it is paused, over several polls.
    const pausedFrom = events.length;
    await write(voterURL, 3_000);
    // A pass waits for the paused learner's status call to time out: wait for a poll after the writes.
    const whilePaused = await waitFor('a poll after the writes', 30_000, async () => {
      const c = await current();
      return (leaderIndexOf(c.status!) ?? 0) > 3_000 ? c : undefined;
    }, explainCluster, 200);
    expect(roleOf(whilePaused.status, LEARNER)).toBe('learner');
    const pausedObs = whilePaused.status?.learnerObservations?.at(-1);
    expect(pausedObs).toMatchObject({ member: LEARNER, healthy: false });
    expect(whilePaused.status?.conditions?.find((c) => c.type === 'Progressing')?.message).toMatch(new RegExp(`${LEARNER}`));
    expect(events.slice(pausedFrom).some((e) => e.kind === 'step' && e.step.kind === 'promote')).toBe(false);

    // Resume it while writes go on; it catches up and is promoted, then the third voter follows.
    const resumedAt = events.length;
    reconciler.resumeMember(NS, NAME, LEARNER);
    let writing = true;
    const background = (async () => {
      // About 40 entries a second: the member statuses of one poll are read over fresh
      // connections that can land a second apart on a loaded machine, so a faster stream could
      // keep the sampled lag over the 100-entry rule without the learner being behind.
      for (let round = 0; writing; round++) await write(voterURL, 10, 2, `bg${round}`).then(() => new Promise((r) => setTimeout(r, 250)));
    })();
    try {
      await waitFor(`${LEARNER} a voter`, 90_000, async () => (roleOf((await current()).status, LEARNER) === 'voter' ? true : undefined), explainCluster, 200);
    } finally {
      writing = false;
      await background;
    }

    const after = events.slice(resumedAt);
    const promoteAt = after.findIndex((e) => e.kind === 'step' && e.step.kind === 'promote' && e.step.member === LEARNER);
    expect(promoteAt, 'the planner promoted the learner (not someone else)').toBeGreaterThanOrEqual(0);
    const promote = after[promoteAt] as Extract<Event, { kind: 'step' }>;

    // This poll: healthy and within 100 entries of the leader's committed index.
    const learnerNow = promote.members.find((m) => m.name === LEARNER)!;
    expect(learnerNow.healthy).toBe(true);
    expect(promote.leaderRaftIndex! - learnerNow.raftAppliedIndex!).toBeLessThanOrEqual(LEARNER_PROMOTION_RULE.maxLagEntries);

    // The previous poll (the status it wrote, which this pass started from) saw the same: the
    // member table itself, and the observation the rule kept.
    const previous = after.slice(0, promoteAt).filter((e): e is Extract<Event, { kind: 'status' }> => e.kind === 'status').at(-1)?.status;
    expect(previous, 'a poll between resuming and promoting').toBeDefined();
    const row = previous!.members!.find((m) => m.name === LEARNER)!;
    expect(row.role).toBe('learner');
    expect(row.health).toBe('healthy');
    expect(leaderIndexOf(previous!)! - row.raftAppliedIndex!).toBeLessThanOrEqual(LEARNER_PROMOTION_RULE.maxLagEntries);
    const kept = previous!.learnerObservations?.at(-1);
    expect(kept?.member).toBe(LEARNER);
    expect(observationBlocker(kept!)).toBeUndefined();

    // Before that, after resuming, polls that saw it unhealthy or far behind did not promote it.
    const polls = after.slice(0, promoteAt).filter((e): e is Extract<Event, { kind: 'status' }> => e.kind === 'status');
    const notCaughtUp = polls.filter((p) => {
      const o = p.status.learnerObservations?.at(-1);
      return o && o.member === LEARNER && observationBlocker(o) !== undefined;
    });
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(notCaughtUp.every((p) => roleOf(p.status, LEARNER) === 'learner')).toBe(true);

    // And the cluster finishes growing.
    await waitFor('3 healthy voters', 90_000, async () => {
      const s = (await current()).status;
      return s?.members?.length === 3 && s.members.every((m) => m.role === 'voter' && m.health === 'healthy') ? true : undefined;
    }, explainCluster, 300);
  });
});
