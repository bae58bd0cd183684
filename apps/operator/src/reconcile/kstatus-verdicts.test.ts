/**
 * What kstatus (sigs.k8s.io/cli-utils, as Flux and kpt run it; tools/kstatus) decides about the
 * statuses the operator's pure status builders write, kind by kind: InProgress while work is under
 * way or the generation is not observed, Failed after a terminal failure, Current once settled.
 * The verdicts come from the real Go code, not from a re-implementation of its rules. It also
 * checks the kstatus verdict each Argo CD fixture (docs/argocd/fixtures) claims; with
 * ORRERY_RECORD_ARGOCD_FIXTURES=1 it writes the RegistryCluster and StateSync fixtures that the
 * Kubernetes test (kstatus.kube.test.ts) does not record live.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentSchema, FunctionSchema, RevisionSchema, type Condition, type OrreryFunction, type RegistryMember, type Revision } from '@orrery/spec';
import { kstatus, kstatusBin } from '../testing/kstatus-verdict.ts';
import { buildClusterStatus, type StatusInput } from '../registry-cluster/cluster-status.ts';
import { buildSyncStatus, type ReplicaReport } from '../state-sync/replica-status.ts';
import { environmentStatus } from './environment-status.ts';
import { functionStatus } from './function-status.ts';
import { revisionStatus } from './revision-status.ts';
import { withProgress } from './kstatus-conditions.ts';

const now = new Date('2026-12-01T12:00:00Z');
const GV = 'orrery.dev/v1alpha1';
const obj = (kind: string, generation: number, status: unknown) => ({ apiVersion: GV, kind, metadata: { name: 'x', namespace: 'default', generation }, status });
const verdict = (kind: string, generation: number, status: unknown) => kstatus([obj(kind, generation, status)])[0]!;

beforeAll(() => void kstatusBin(), 300_000);

const fn = (inline: string, generation = 1): OrreryFunction =>
  FunctionSchema.parse({ apiVersion: GV, kind: 'Function', metadata: { name: 'hello', namespace: 'default', uid: 'u', generation }, spec: { template: { source: { inline } } } });
const rev = (n: number, ready: Condition['status'], reason = 'WorkersReady'): Revision =>
  RevisionSchema.parse({
    apiVersion: GV,
    kind: 'Revision',
    metadata: { name: `hello-${String(n).padStart(5, '0')}`, namespace: 'default', generation: 1 },
    spec: { function: 'hello', template: fn('x').spec.template },
    status: { conditions: [{ type: 'Ready', status: ready, reason, message: ready === 'False' ? 'workers keep exiting: SyntaxError' : '' }] },
  });

describe('Function', () => {
  it('InProgress while its first revision is created and while a new one rolls out behind a ready one', () => {
    expect(verdict('Function', 1, functionStatus({ fn: fn('a'), revisions: [], now })).status).toBe('InProgress');
    const rolling = functionStatus({ fn: fn('b', 2), revisions: [rev(1, 'True'), rev(2, 'Unknown', 'Deploying')], now });
    const v = verdict('Function', 2, rolling);
    expect(v.status).toBe('InProgress');
    expect(v.message).toContain('hello-00002');
  });
  it('Current once the latest revision is ready and traffic resolves', () => {
    expect(verdict('Function', 2, functionStatus({ fn: fn('b', 2), revisions: [rev(1, 'True'), rev(2, 'True')], now })).status).toBe('Current');
  });
  it('Failed when the latest revision failed, with its words; Current again after a fix', () => {
    const failed = functionStatus({ fn: fn('b', 2), revisions: [rev(1, 'True'), rev(2, 'False', 'WorkerCrashing')], now });
    const v = verdict('Function', 2, failed);
    expect(v.status).toBe('Failed');
    expect(v.message).toContain('SyntaxError');
    const fixed = functionStatus({ fn: { ...fn('c', 3), status: failed }, revisions: [rev(1, 'True'), rev(2, 'False', 'WorkerCrashing'), rev(3, 'True')], now });
    expect(verdict('Function', 3, fixed).status).toBe('Current');
    expect(fixed.conditions!.map((c) => c.type)).not.toContain('Stalled');
  });
  it('Failed when a rule on another object blocks the rollout (a taken keyspace)', () => {
    const s = functionStatus({ fn: fn('a'), revisions: [], now, blocked: { reason: 'state_keyspace_taken', message: 'keyspace carts belongs to default/owner' } });
    expect(verdict('Function', 1, s)).toMatchObject({ status: 'Failed', message: expect.stringContaining('default/owner') });
  });
  it('InProgress when the spec changed after the status was written (observedGeneration lags)', () => {
    const settled = functionStatus({ fn: fn('a', 1), revisions: [rev(1, 'True')], now });
    expect(verdict('Function', 2, settled).status).toBe('InProgress');
  });
  it('without Stalled, a failed Function would read InProgress forever (why the operator writes it)', () => {
    const failed = functionStatus({ fn: fn('b'), revisions: [rev(1, 'False', 'WorkerCrashing')], now });
    const bare = { ...failed, conditions: withProgress(failed.conditions, { state: 'done' }, now) };
    expect(verdict('Function', 1, bare).status).toBe('InProgress');
  });
});

describe('Revision', () => {
  const r = rev(1, 'Unknown');
  const workers = (w: Partial<Parameters<typeof revisionStatus>[1]>) => ({ desired: 1, actual: 1, ready: 0, restarts: 0, ...w });
  it('InProgress while workers start; Current once one is ready and when scaled to zero after', () => {
    expect(verdict('Revision', 1, revisionStatus({ ...r, status: undefined }, workers({}), now)).status).toBe('InProgress');
    const up = revisionStatus({ ...r, status: undefined }, workers({ ready: 1 }), now);
    expect(verdict('Revision', 1, up).status).toBe('Current');
    expect(verdict('Revision', 1, revisionStatus({ ...r, status: up }, workers({ desired: 0, actual: 0 }), now)).status).toBe('Current');
  });
  it('Failed for crashing workers, a missing secret, a Deployment past its progress deadline, an unsupported template', () => {
    expect(verdict('Revision', 1, revisionStatus(r, workers({ crashLoop: 'SyntaxError', restarts: 4 }), now)).status).toBe('Failed');
    expect(verdict('Revision', 1, revisionStatus(r, workers({ configError: 'secret db/password not found' }), now)).status).toBe('Failed');
    const deadline = revisionStatus(r, workers({ failed: { reason: 'ProgressDeadlineExceeded', message: 'no worker became ready' } }), now);
    expect(verdict('Revision', 1, deadline)).toMatchObject({ status: 'Failed', message: 'no worker became ready' });
    expect(verdict('Revision', 1, revisionStatus(r, workers({}), now, { reason: 'Unsupported', message: 'no' })).status).toBe('Failed');
  });
});

describe('Environment', () => {
  it('Current once accepted; InProgress while a spec change is unobserved', () => {
    const env = EnvironmentSchema.parse({ apiVersion: GV, kind: 'Environment', metadata: { name: 'node', generation: 2 }, spec: {} });
    expect(verdict('Environment', 2, environmentStatus(env, 0, now)).status).toBe('Current');
    expect(verdict('Environment', 3, environmentStatus(env, 0, now)).status).toBe('InProgress');
  });
});

describe('RegistryCluster', () => {
  const member = (name: string, o: Partial<RegistryMember> = {}): RegistryMember => ({ id: name, name, role: 'voter', isLeader: false, health: 'healthy', ...o });
  const three = [member('r-0', { isLeader: true }), member('r-1'), member('r-2')];
  const input = (o: Partial<StatusInput>): StatusInput => ({ prev: undefined, generation: 1, desiredVoters: 3, members: three, step: { kind: 'steady', message: 'steady' }, requestProblems: [], now, ...o });
  it('Current when steady with quorum', () => {
    expect(verdict('RegistryCluster', 1, buildClusterStatus(input({}))).status).toBe('Current');
  });
  it('InProgress while bootstrapping, adding a learner or without quorum', () => {
    expect(verdict('RegistryCluster', 1, buildClusterStatus(input({ members: [], step: { kind: 'bootstrap', names: ['r-0'], message: 'starting r-0' } }))).status).toBe('InProgress');
    const scaling = buildClusterStatus(input({ desiredVoters: 5, step: { kind: 'add-learner', name: 'r-3', ordinal: 3, message: 'adding r-3 as a learner' } }));
    expect(verdict('RegistryCluster', 1, scaling)).toMatchObject({ status: 'InProgress', message: 'adding r-3 as a learner' });
    const noQuorum = buildClusterStatus(input({ members: [member('r-0'), member('r-1', { health: 'unhealthy' }), member('r-2', { health: 'unhealthy' })], step: { kind: 'wait', reason: 'no-leader', message: 'no leader' } }));
    expect(verdict('RegistryCluster', 1, noQuorum).status).toBe('InProgress');
  });
});

describe('StateSync', () => {
  const ok = (replica: string): ReplicaReport => ({ replica, status: { syncables: [{ syncable: 'sticky-owners', lastSuccessfulCycle: now.toISOString(), entitiesPulled: 1, entitiesPushed: 1, backoffSeconds: 1 }] } });
  it('Current when every replica synced; InProgress while settings roll out, even where Ready was True', () => {
    const synced = buildSyncStatus({ prev: undefined, generation: 2, notes: [], reports: [ok('a')], now });
    expect(verdict('StateSync', 2, synced).status).toBe('Current');
    const rolling = buildSyncStatus({ prev: synced, generation: 2, rollingOut: 'restarting 2 router replica(s)', notes: [], reports: [ok('a')], now });
    expect(rolling.conditions!.find((c) => c.type === 'Ready')!.status).toBe('True');
    expect(verdict('StateSync', 2, rolling)).toMatchObject({ status: 'InProgress', message: 'restarting 2 router replica(s)' });
  });
  it('Failed when its settings cannot be applied', () => {
    const bad = buildSyncStatus({ prev: undefined, generation: 1, renderError: { reason: 'NoTarget', message: 'no Deployment labelled app=router' }, notes: [], reports: [], now });
    expect(verdict('StateSync', 1, bad)).toMatchObject({ status: 'Failed', message: 'no Deployment labelled app=router' });
  });
});

const FIXTURES = resolve(import.meta.dirname, '..', '..', '..', '..', 'docs', 'argocd', 'fixtures');

describe('the Argo CD fixtures (docs/argocd/fixtures)', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort();
  it('exist', () => expect(files.length).toBeGreaterThanOrEqual(10));
  for (const file of files) {
    it(`${file}: kstatus says what the fixture claims`, () => {
      const f = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { kstatus: string; object: object };
      expect(kstatus([f.object])[0]!.status).toBe(f.kstatus);
    });
  }
});

describe.runIf(process.env.ORRERY_RECORD_ARGOCD_FIXTURES === '1')('recording builder fixtures', () => {
  const write = (file: string, description: string, builder: string, argocd: string, kind: string, generation: number, status: unknown) => {
    const object = { apiVersion: GV, kind, metadata: { name: kind === 'RegistryCluster' ? 'registry' : 'routers', namespace: 'shop', generation }, status };
    const fixture = { description, source: `what ${builder} writes, recorded by apps/operator/src/reconcile/kstatus-verdicts.test.ts`, argocd, kstatus: kstatus([object])[0]!.status, object };
    writeFileSync(join(FIXTURES, `${file}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
  };
  it('writes them', () => {
    const member = (name: string, o: Partial<RegistryMember> = {}): RegistryMember => ({ id: name, name, role: 'voter', isLeader: false, health: 'healthy', raftTerm: 2, raftIndex: 41, ...o });
    const three = [member('registry-0', { isLeader: true }), member('registry-1'), member('registry-2')];
    const rc = (o: Partial<StatusInput>) => buildClusterStatus({ prev: undefined, generation: 2, desiredVoters: 3, members: three, step: { kind: 'steady', message: 'membership matches spec.replicas' }, requestProblems: [], endpoint: 'http://registry.shop:2379', now, ...o });
    const cs = 'apps/operator/src/registry-cluster/cluster-status.ts';
    write('registrycluster-steady', 'three healthy voters with a leader', cs, 'Healthy', 'RegistryCluster', 2, rc({}));
    write('registrycluster-adding-learner', 'scaling from 3 to 5: a learner is being added', cs, 'Progressing', 'RegistryCluster', 2, rc({ desiredVoters: 5, step: { kind: 'add-learner', name: 'registry-3', ordinal: 3, message: 'adding registry-3 as a learner' } }));
    write('registrycluster-no-quorum', 'two of three voters down, no leader', cs, 'Degraded', 'RegistryCluster', 2, rc({ members: [member('registry-0'), member('registry-1', { health: 'unhealthy' }), member('registry-2', { health: 'unhealthy' })], step: { kind: 'wait', reason: 'no-leader', message: 'no leader: waiting for the cluster to elect one' } }));
    const ss = 'apps/operator/src/state-sync/replica-status.ts';
    const ok = (replica: string): ReplicaReport => ({ replica, status: { syncables: [{ syncable: 'sticky-owners', lastSuccessfulCycle: now.toISOString(), entitiesPulled: 3, entitiesPushed: 2, backoffSeconds: 1 }] } });
    const synced = buildSyncStatus({ prev: undefined, generation: 1, notes: [], reports: [ok('orrery-router-0'), ok('orrery-router-1')], now });
    write('statesync-synced', 'both router replicas completed a sync cycle', ss, 'Healthy', 'StateSync', 1, synced);
    write('statesync-rolling-out', 'new settings rolling out (Ready still True from the old ones)', ss, 'Progressing', 'StateSync', 2, buildSyncStatus({ prev: synced, generation: 2, rollingOut: 'rolling out settings 5e1a to orrery-router', notes: [], reports: [ok('orrery-router-0'), ok('orrery-router-1')], now }));
    const failing = ok('orrery-router-1');
    failing.status!.syncables[0]!.lastError = 'connect ECONNREFUSED 10.96.0.12:6379';
    write('statesync-sync-errors', 'one replica cannot reach Redis', ss, 'Degraded', 'StateSync', 1, buildSyncStatus({ prev: synced, generation: 1, notes: [], reports: [ok('orrery-router-0'), failing], now }));
  });
});
