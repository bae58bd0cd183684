/**
 * RegistryCluster on either backend: a placement (registry-cluster-backend.ts) runs the etcd members
 * and the `orrery-registry` API — locally as child processes
 * (backends/local/local-registry-cluster-backend.ts), on Kubernetes as a StatefulSet and a
 * Deployment (backends/kubernetes/kube-registry-cluster-backend.ts). Every few seconds (and on every spec or request change) it observes the cluster, executes at most one
 * membership step chosen by `planMembership` (or one pending request), and writes status.
 * It never edits spec: GitOps owns spec, one-click actions are requests (see plan-request.ts).
 */
import { GROUP_VERSION, appendObservation, lastTwoObservations, parseDurationMs, type LearnerObservation, type LearnerPromotion, type RegistryCluster, type RegistryMember } from '@orrery/spec';
import type { ResourceStore, Watch } from '@orrery/store';
import { setCondition } from '../reconcile/conditions.ts';
import { withProgress } from '../reconcile/kstatus-conditions.ts';
import { buildClusterStatus } from './cluster-status.ts';
import { type EventRecorder, eventTarget } from '../events/event-recorder.ts';
import type { OperatorMetrics } from '../metrics/operator-metrics.ts';
import { requestEvent, stepEvent } from './membership-events.ts';
import type { ClusterPlacement, RegistryClusterBackend } from './registry-cluster-backend.ts';
import { addLearner, moveLeader, promoteMember, removeMember } from './membership-calls.ts';
import { observeCluster, type ClusterObservation } from './observe-cluster.ts';
import { learnerObservation, planMembership, promotionOf, type MembershipStep, type ObservedMember, type PlanInput } from './plan-membership.ts';
import { planMemberRestart } from './plan-member-restart.ts';
import { decideRequest, nextRequest, parseRequests, type ClusterRequest } from './plan-request.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface RegistryClusterReconcilerOptions {
  store: ResourceStore;
  /** Where members run (local: child processes; Kubernetes: a StatefulSet). */
  backend: RegistryClusterBackend;
  /** How often every cluster is observed and its status refreshed (default 2 s). */
  intervalMs?: number;
  /** Called when a cluster's registry API URL (status.endpoint) appears or changes. */
  onEndpoint?: (key: string, url: string | undefined) => void;
  log?: Log;
  /** Events for every membership change (learner added, promoted, member removed, …). */
  events?: EventRecorder;
  /** Reconcile counts and durations of kind RegistryCluster (GET /metrics). */
  metrics?: OperatorMetrics;
  now?: () => number;
  /** Test hook: called with what the planner saw, before a step is executed. */
  onStep?: (key: string, step: MembershipStep | { kind: 'request'; request: ClusterRequest }, members: ObservedMember[], leaderRaftIndex?: number) => void;
}

interface ClusterRuntime extends ClusterPlacement {
  unhealthySince: Map<string, number>;
  busy: boolean;
  again: boolean;
  seen: string;
}

const HANDLED_KEEP = 50;
const keyOf = (ns: string, name: string) => `${ns}/${name}`;

export class RegistryClusterReconciler {
  private readonly runtimes = new Map<string, ClusterRuntime>();
  private watch?: Watch;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly log: Log;
  private readonly now: () => number;

  private readonly reportedEndpoints = new Map<string, string | undefined>();
  private readonly backend: RegistryClusterBackend;

  constructor(private readonly o: RegistryClusterReconcilerOptions) {
    this.log = o.log ?? (() => {});
    this.now = o.now ?? Date.now;
    this.backend = o.backend;
  }

  async start(): Promise<void> {
    this.watch = this.o.store.watch('RegistryCluster', {}, (e) => {
      const rc = e.object as RegistryCluster;
      const key = keyOf(rc.metadata.namespace, rc.metadata.name);
      if (e.type === 'deleted') {
        void this.release(key);
        return;
      }
      // Our own status writes come back as events too: only spec and request changes matter.
      const seen = `${rc.metadata.generation ?? 0}|${rc.metadata.annotations?.['orrery.dev/requests'] ?? ''}`;
      const rt = this.runtimes.get(key);
      if (rt && rt.seen === seen) return;
      this.kick(rc);
    });
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.o.intervalMs ?? 2000);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      for (const rc of (await this.o.store.list('RegistryCluster')).items) this.kick(rc as RegistryCluster);
    } catch (err) {
      this.log('registry cluster list failed', { error: String(err) });
    }
  }

  private kick(rc: RegistryCluster): void {
    if (this.stopped) return;
    const key = keyOf(rc.metadata.namespace, rc.metadata.name);
    const rt = this.runtime(rc);
    if (rt.busy) {
      rt.again = true;
      return;
    }
    rt.busy = true;
    void (async () => {
      try {
        do {
          rt.again = false;
          const fresh = (await this.o.store.get('RegistryCluster', rc.metadata.namespace, rc.metadata.name)) as RegistryCluster | undefined;
          if (!fresh || this.stopped) break;
          rt.seen = `${fresh.metadata.generation ?? 0}|${fresh.metadata.annotations?.['orrery.dev/requests'] ?? ''}`;
          const started = performance.now();
          try {
            await this.reconcile(key, fresh, rt);
          } catch (err) {
            this.o.metrics?.reconciled('RegistryCluster', 'error', (performance.now() - started) / 1000);
            throw err;
          }
          this.o.metrics?.reconciled('RegistryCluster', 'success', (performance.now() - started) / 1000);
        } while (rt.again && !this.stopped);
      } catch (err) {
        this.log('registry cluster reconcile failed', { cluster: key, error: String((err as Error).message ?? err) });
      } finally {
        rt.busy = false;
      }
    })();
  }

  private runtime(rc: RegistryCluster): ClusterRuntime {
    const key = keyOf(rc.metadata.namespace, rc.metadata.name);
    let rt = this.runtimes.get(key);
    if (rt) return rt;
    const placement = this.backend.open(rc, (msg, f) => this.log(msg, { cluster: key, ...f }));
    rt = Object.assign(placement, { unhealthySince: new Map<string, number>(), busy: false, again: false, seen: '' });
    this.runtimes.set(key, rt);
    return rt;
  }

  /** Lets go of a deleted (or, at stop, every) cluster. Local data dirs are retained (delete them by hand). */
  private async release(key: string): Promise<void> {
    const rt = this.runtimes.get(key);
    if (!rt) return;
    this.runtimes.delete(key);
    await rt.release();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.watch?.close();
    // Let an in-flight pass finish so no process is started after we kill everything.
    const deadline = Date.now() + 20_000;
    while ([...this.runtimes.values()].some((r) => r.busy) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await Promise.all([...this.runtimes.keys()].map((k) => this.release(k)));
  }

  /** Pids of every etcd member and registry API this reconciler runs (tests check cleanup). */
  processes(): Array<{ cluster: string; member: string; running: boolean }> {
    const out: Array<{ cluster: string; member: string; running: boolean }> = [];
    for (const [cluster, rt] of this.runtimes) for (const m of rt.members.list()) out.push({ cluster, member: m.name, running: rt.members.isRunning(m.name) });
    return out;
  }

  /** Kills one member's process; it comes back on the next pass (a crash). */
  async killMember(namespace: string, name: string, member: string): Promise<void> {
    await this.runtimes.get(keyOf(namespace, name))?.members.kill?.(member);
  }

  /** Kills one member and keeps it down (a lost machine): only replacement heals it. */
  async failMember(namespace: string, name: string, member: string): Promise<void> {
    await this.runtimes.get(keyOf(namespace, name))?.members.fail?.(member);
  }

  /** Pauses one member's process (SIGSTOP): it answers nothing and falls behind until `resumeMember`. */
  pauseMember(namespace: string, name: string, member: string): void {
    this.runtimes.get(keyOf(namespace, name))?.members.pause?.(member);
  }

  resumeMember(namespace: string, name: string, member: string): void {
    this.runtimes.get(keyOf(namespace, name))?.members.resume?.(member);
  }

  /** Client URLs of the members this reconciler runs for a cluster. */
  clientURLs(namespace: string, name: string): string[] {
    return this.runtimes.get(keyOf(namespace, name))?.members.list().map((m) => m.clientURL) ?? [];
  }

  private async reconcile(key: string, rc: RegistryCluster, rt: ClusterRuntime): Promise<void> {
    const nowMs = this.now();
    const blocked = rt.blocked?.();
    if (blocked) {
      // Report it on the resource (the console and `orrery get` show it) instead of failing.
      const { reason, message } = blocked;
      let conditions = setCondition(rc.status?.conditions, { type: 'Available', status: 'False', reason, message }, new Date(nowMs));
      conditions = setCondition(conditions, { type: 'Degraded', status: 'True', reason, message }, new Date(nowMs));
      // Nothing runs until a person acts (kstatus Failed, not InProgress forever).
      conditions = withProgress(conditions, { state: 'stalled', reason, message }, new Date(nowMs));
      if (!this.stopped) await this.o.store.updateStatus('RegistryCluster', rc.metadata.namespace, rc.metadata.name, { ...rc.status, conditions, observedGeneration: rc.metadata.generation });
      return;
    }
    await rt.refresh?.(rc);
    const local = rt.members.list();
    const obs = await observeCluster(local.map((m) => m.clientURL));

    // Bring members back: after an operator restart, or a crashed process.
    const withData = new Set(local.filter((m) => rt.members.hasData(m.name)).map((m) => m.name));
    for (const m of local) {
      if (rt.members.isRunning(m.name) || obs.statuses.has(m.clientURL)) continue;
      const plan = planMemberRestart({ member: m, hasData: withData.has(m.name), anyData: withData.size > 0, local, etcdMembers: obs.members });
      if (plan) await rt.members.start(m.name, plan.initialCluster, plan.state);
    }
    // Identities etcd never accepted (MemberAdd failed or was removed): forget them.
    if (obs.members) {
      for (const m of local) {
        if (!obs.members.some((x) => x.peerURL === m.peerURL)) {
          this.log('forgetting member etcd does not know', { cluster: key, member: m.name });
          await rt.members.forget(m.name);
        }
      }
    }

    const { observed, table, leaderRaftIndex, leaderTerm } = this.describe(rc, rt, obs, nowMs);
    const prev = rc.status;
    // The learner (etcd allows one) as the last poll saw it: the promotion rule compares it with now.
    const learner = observed.find((m) => m.inCluster && m.role === 'learner');
    const previousLearnerObservation = learner ? lastTwoObservations(prev?.learnerObservations, learner.name)[1] : undefined;
    const input = (manualMembers: string[]): PlanInput => ({
      ...this.planInput(rc, observed, leaderRaftIndex, nowMs, manualMembers),
      leaderTerm,
      previousLearnerObservation,
    });
    let handled = prev?.handledRequests;
    let lastRequest = prev?.lastRequest;
    // Request-added members still in the cluster (one removed by etcd or by request drops out).
    let manual = (prev?.manualMembers ?? []).filter((n) => observed.some((m) => m.name === n && m.inCluster));
    const { requests, problems } = parseRequests(rc.metadata.annotations);
    let step: MembershipStep = { kind: 'steady', message: '' };
    let stepError: string | undefined;
    const pending = nextRequest(requests, handled);
    if (pending && obs.members) {
      this.o.onStep?.(key, { kind: 'request', request: pending }, observed, leaderRaftIndex);
      const planned = planMembership(rc.metadata.name, input(manual));
      const promotion = learner ? promotionOf(input(manual), learner) : undefined;
      const outcome = await this.runRequest(key, rc, rt, pending, observed, obs, planned, promotion);
      if (outcome.held) manual = [...manual, outcome.held];
      if (outcome.outcome === 'succeeded' && (pending.action === 'remove' || pending.action === 'replace')) manual = manual.filter((n) => n !== outcome.member);
      lastRequest = { id: pending.id, action: pending.action, member: pending.member, outcome: outcome.outcome, message: outcome.message, completedAt: new Date(nowMs).toISOString() };
      handled = [...(handled ?? []), pending.id].slice(-HANDLED_KEEP);
      this.o.events?.record(eventTarget(GROUP_VERSION, 'RegistryCluster', rc), requestEvent(pending, outcome.outcome, outcome.message));
      this.log('request handled', { cluster: key, id: pending.id, action: pending.action, outcome: outcome.outcome, message: outcome.message });
      step = planMembership(rc.metadata.name, input(manual));
    } else {
      step = planMembership(rc.metadata.name, input(manual));
      if (step.kind !== 'steady' && step.kind !== 'wait') {
        this.o.onStep?.(key, step, observed, leaderRaftIndex);
        this.log('membership step', { cluster: key, step: step.kind, message: step.message });
        try {
          await this.execute(rc, rt, step, observed, obs);
        } catch (err) {
          stepError = String((err as Error).message ?? err).split('\n')[0];
          this.log('membership step failed', { cluster: key, step: step.kind, error: stepError });
        }
        const event = stepEvent(step, stepError);
        if (event) this.o.events?.record(eventTarget(GROUP_VERSION, 'RegistryCluster', rc), event);
      }
    }

    // The API follows the voters once membership is settled (restarts cost a few seconds).
    let endpoint = prev?.endpoint;
    if (rt.api) {
      const voters = table.filter((m) => m.role === 'voter' && m.clientURL).map((m) => m.clientURL!);
      const settled = step.kind === 'steady' || (step.kind === 'wait' && step.reason === 'member-unhealthy');
      if (voters.length && table.some((m) => m.isLeader) && (settled || !rt.api.running())) {
        await rt.api.ensure(voters);
      }
      endpoint = rt.api.running() ? rt.api.url : undefined;
    }
    // Compared with what this process reported (not with status, which may hold a previous run's URL).
    if (!this.reportedEndpoints.has(key) || this.reportedEndpoints.get(key) !== endpoint) {
      this.reportedEndpoints.set(key, endpoint);
      this.o.onEndpoint?.(key, endpoint);
    }

    // This poll's look at the learner joins the history the API and the console read.
    const learnerObservations: LearnerObservation[] | undefined = learner ? appendObservation(prev?.learnerObservations, learnerObservation(input(manual), learner)) : undefined;
    const status = buildClusterStatus({
      prev,
      generation: rc.metadata.generation,
      desiredVoters: rc.spec.replicas,
      members: table,
      step,
      stepError,
      endpoint,
      lastRequest,
      handledRequests: handled,
      manualMembers: manual,
      learnerObservations,
      requestProblems: problems,
      now: new Date(nowMs),
    });
    if (this.stopped) return;
    await this.o.store.updateStatus('RegistryCluster', rc.metadata.namespace, rc.metadata.name, status);
  }

  private planInput(rc: RegistryCluster, members: ObservedMember[], leaderRaftIndex: number | undefined, nowMs: number, manualMembers: string[]) {
    return {
      manualMembers,
      desiredVoters: rc.spec.replicas,
      members,
      leaderRaftIndex,
      nowMs,
      replaceUnhealthyAfterMs: rc.spec.replaceUnhealthyAfter ? parseDurationMs(rc.spec.replaceUnhealthyAfter) : undefined,
    };
  }

  /** The planner's view and the status table, from etcd's member list joined with our identities. */
  private describe(rc: RegistryCluster, rt: ClusterRuntime, obs: ClusterObservation, nowMs: number) {
    const local = rt.members.list();
    const ordinalRe = new RegExp(`^${rc.metadata.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)$`);
    const observed: ObservedMember[] = [];
    const table: RegistryMember[] = [];
    const leaderId = obs.leaderId;
    let leaderRaftIndex: number | undefined;
    let leaderTerm: number | undefined;
    const rows = obs.members
      ? obs.members.map((x) => ({ x, mine: local.find((m) => m.peerURL === x.peerURL) }))
      : local.map((m) => ({ x: undefined, mine: m }));
    for (const { x, mine } of rows) {
      const name = mine?.name ?? x?.name ?? '';
      const clientURL = x?.clientURL || mine?.clientURL;
      const s = clientURL ? obs.statuses.get(clientURL) : undefined;
      const id = x?.id;
      const healthy = !!s;
      const key = name || id || '?';
      if (healthy) rt.unhealthySince.delete(key);
      else if (!rt.unhealthySince.has(key)) rt.unhealthySince.set(key, nowMs);
      const isLeader = !!id && id === leaderId;
      if (isLeader) {
        leaderRaftIndex = s?.raftIndex;
        leaderTerm = s?.raftTerm;
      }
      const role = (x?.isLearner ?? s?.isLearner) ? 'learner' : 'voter';
      observed.push({
        name: key,
        ordinal: mine?.ordinal ?? Number(ordinalRe.exec(name)?.[1] ?? 0),
        id,
        role,
        inCluster: !!x,
        healthy,
        isLeader,
        raftAppliedIndex: s?.raftAppliedIndex,
        unhealthySinceMs: rt.unhealthySince.get(key),
        local: !!mine,
      });
      table.push({
        id: id ?? '',
        name: key,
        role,
        isLeader,
        raftTerm: s?.raftTerm,
        raftIndex: s?.raftIndex,
        raftAppliedIndex: s?.raftAppliedIndex,
        dbSize: s?.dbSize,
        health: healthy ? 'healthy' : obs.members ? 'unhealthy' : 'unknown',
        peerURL: x?.peerURL ?? mine?.peerURL,
        clientURL,
      });
    }
    return { observed, table, leaderRaftIndex, leaderTerm };
  }

  private urlOf(rt: ClusterRuntime, obs: ClusterObservation, m: ObservedMember | undefined): string | undefined {
    if (!m) return undefined;
    return obs.members?.find((x) => x.id === m.id)?.clientURL || rt.members.get(m.name)?.clientURL;
  }

  private async execute(rc: RegistryCluster, rt: ClusterRuntime, step: MembershipStep, observed: ObservedMember[], obs: ClusterObservation): Promise<void> {
    const leader = observed.find((m) => m.isLeader && m.healthy);
    const leaderURL = this.urlOf(rt, obs, leader);
    switch (step.kind) {
      case 'bootstrap': {
        const created = [];
        for (const [i, name] of step.names.entries()) created.push(await rt.members.create(name, i + 1));
        const initial = created.map((m) => `${m.name}=${m.peerURL}`).join(',');
        for (const m of created) await rt.members.start(m.name, initial, 'new');
        return;
      }
      case 'add-learner': {
        if (!leaderURL) throw new Error('no leader to send MemberAdd to');
        const m = await rt.members.create(step.name, step.ordinal);
        const added = await addLearner(leaderURL, m.name, m.peerURL);
        await rt.members.start(m.name, added.initialCluster, 'existing');
        return;
      }
      case 'promote': {
        const target = observed.find((m) => m.name === step.member);
        if (!leaderURL || !target?.id) throw new Error('no leader or no member id for promote');
        await promoteMember(leaderURL, target.id);
        return;
      }
      case 'remove':
        return this.removeOne(rt, step.member, observed, obs);
      case 'transfer-leader': {
        const to = observed.find((m) => m.name === step.to);
        if (!leaderURL || !to?.id) throw new Error('no leader or no target id for leader transfer');
        await moveLeader(leaderURL, to.id);
        return;
      }
      case 'wait':
      case 'steady':
        return;
    }
  }

  private async removeOne(rt: ClusterRuntime, member: string, observed: ObservedMember[], obs: ClusterObservation): Promise<void> {
    const target = observed.find((m) => m.name === member || m.id === member);
    if (!target?.id) throw new Error(`no member id for ${member}`);
    // Send the removal to a member that stays, so the answer is not lost with the removed one.
    const stay = observed.find((m) => m.name !== target.name && m.isLeader && m.healthy) ?? observed.find((m) => m.name !== target.name && m.role === 'voter' && m.healthy);
    const url = this.urlOf(rt, obs, stay);
    if (!url) throw new Error('no other healthy voter to send the removal to');
    await removeMember(url, target.id);
    if (target.local) await rt.members.forget(target.name);
  }

  private async runRequest(
    key: string,
    rc: RegistryCluster,
    rt: ClusterRuntime,
    req: ClusterRequest,
    observed: ObservedMember[],
    obs: ClusterObservation,
    planned: MembershipStep,
    promotion: LearnerPromotion | undefined,
  ): Promise<{ outcome: 'succeeded' | 'failed' | 'rejected'; message: string; held?: string; member?: string }> {
    const d = decideRequest(req, observed, planned, rc.metadata.name, promotion);
    if (d.kind === 'reject') return { outcome: 'rejected', message: d.message };
    const leader = observed.find((m) => m.isLeader && m.healthy);
    try {
      switch (d.kind) {
        case 'add-learner':
          await this.execute(rc, rt, { kind: 'add-learner', name: d.name, ordinal: d.ordinal, message: '' }, observed, obs);
          return d.held
            ? { outcome: 'succeeded', message: `learner ${d.name} added on top of spec.replicas; it stays a learner until you promote it`, held: d.name }
            : { outcome: 'succeeded', message: `learner ${d.name} added; it is promoted once caught up` };
        case 'transfer-leader': {
          const to = observed.find((m) => m.name === d.to)!;
          await moveLeader(this.urlOf(rt, obs, leader)!, to.id!);
          return { outcome: 'succeeded', message: `leadership moved from ${d.from} to ${d.to}` };
        }
        case 'promote': {
          const t = observed.find((m) => m.name === d.member)!;
          await promoteMember(this.urlOf(rt, obs, leader)!, t.id!);
          return { outcome: 'succeeded', message: `${d.member} promoted to voter${req.force ? ' (forced: the catch-up rule was skipped)' : ''}` };
        }
        case 'remove':
          await this.removeOne(rt, d.member, observed, obs);
          return {
            outcome: 'succeeded',
            member: d.member,
            message: req.action === 'replace' ? `${d.member} removed; a new learner follows` : `${d.member} removed (spec.replicas still decides the size: lower it to keep the cluster smaller)`,
          };
      }
    } catch (err) {
      this.log('request failed', { cluster: key, id: req.id, error: String((err as Error).message ?? err).split('\n')[0] });
      return { outcome: 'failed', message: String((err as Error).message ?? err).split('\n')[0]! };
    }
  }
}
