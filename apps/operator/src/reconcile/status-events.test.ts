import { describe, expect, it } from 'vitest';
import type { Condition, FunctionStatus, RevisionStatus } from '@orrery/spec';
import { functionEvents, revisionEvents } from './status-events.ts';

const cond = (type: string, status: Condition['status'], reason: string, message = ''): Condition => ({ type, status, reason, message });
const fnStatus = (s: Partial<FunctionStatus> & { cfg?: Condition }): FunctionStatus => ({ ...s, conditions: s.cfg ? [s.cfg] : [] });
const reasons = (events: Array<{ reason: string }>) => events.map((e) => e.reason);

describe('functionEvents', () => {
  it('tells a rollout: revision created, then ready; nothing when nothing changed', () => {
    const created = fnStatus({ latestCreatedRevision: 'f-00001', cfg: cond('ConfigurationsReady', 'Unknown', 'RevisionPending') });
    expect(functionEvents(undefined, created)).toEqual([{ reason: 'RevisionCreated', message: 'created revision f-00001' }]);
    const ready = fnStatus({ latestCreatedRevision: 'f-00001', latestReadyRevision: 'f-00001', cfg: cond('ConfigurationsReady', 'True', 'RevisionReady') });
    expect(functionEvents(created, ready)).toEqual([{ reason: 'RevisionReady', message: 'revision f-00001 is ready' }]);
    expect(functionEvents(ready, ready)).toEqual([]);
  });

  it('reports the latest revision failing once per failure, with its reason', () => {
    const prev = fnStatus({ latestCreatedRevision: 'f-00002', latestReadyRevision: 'f-00001', cfg: cond('ConfigurationsReady', 'Unknown', 'RevisionPending') });
    const failed = fnStatus({ ...prev, cfg: cond('ConfigurationsReady', 'False', 'WorkerCrashing', 'f-00002: workers keep exiting (3 restarts)') });
    expect(functionEvents(prev, failed)).toEqual([{ reason: 'RevisionFailed', message: 'WorkerCrashing: f-00002: workers keep exiting (3 restarts)' }]);
    // The restart count in the message moves on; the failure is the same one.
    const still = fnStatus({ ...prev, cfg: cond('ConfigurationsReady', 'False', 'WorkerCrashing', 'f-00002: workers keep exiting (9 restarts)') });
    expect(functionEvents(failed, still)).toEqual([]);
  });

  it('reports a keyspace conflict as a Warning with the owner, and taking the keyspace once the owner leaves', () => {
    const blocked = { reason: 'state_keyspace_taken', message: 'keyspace ns/shared belongs to Function owner' };
    const conflict = fnStatus({ cfg: cond('ConfigurationsReady', 'False', 'state_keyspace_taken', `spec.template is not rolled out: ${blocked.message}`) });
    expect(functionEvents(undefined, conflict, { blocked, keyspace: 'shared' })).toEqual([{ reason: 'KeyspaceConflict', message: blocked.message }]);
    const rolled = fnStatus({ latestCreatedRevision: 'f-00001', cfg: cond('ConfigurationsReady', 'Unknown', 'RevisionPending') });
    expect(reasons(functionEvents(conflict, rolled, { keyspace: 'shared' }))).toEqual(['RevisionCreated', 'KeyspaceTaken']);
    expect(functionEvents(conflict, rolled, { keyspace: 'shared' })[1]!.message).toContain('keyspace shared');
  });

  it('names the keyspace a stateful Function takes with its first revision; a stateless one takes none', () => {
    const first = fnStatus({ latestCreatedRevision: 'f-00001' });
    expect(functionEvents(undefined, first, { keyspace: 'carts' })).toContainEqual({ reason: 'KeyspaceTaken', message: 'owns keyspace carts' });
    expect(reasons(functionEvents(undefined, first))).toEqual(['RevisionCreated']);
    const second = fnStatus({ latestCreatedRevision: 'f-00002' });
    expect(reasons(functionEvents(first, second, { keyspace: 'carts' }))).toEqual(['RevisionCreated']);
  });

  it('reports another cross-object rule as RolloutBlocked', () => {
    const blocked = { reason: 'state_environment_infinite', message: 'state needs single' };
    const s = fnStatus({ cfg: cond('ConfigurationsReady', 'False', blocked.reason, 'x') });
    expect(functionEvents(undefined, s, { blocked })).toEqual([{ reason: 'RolloutBlocked', message: 'state_environment_infinite: state needs single' }]);
  });
});

const revStatus = (desired: number, ready?: Condition): RevisionStatus => ({ desiredScale: desired, conditions: ready ? [ready] : [] });

describe('revisionEvents', () => {
  it('reports a scale change from → to with the autoscaler’s reason, and nothing when the scale holds', () => {
    expect(revisionEvents(revStatus(1), revStatus(3), 'panic: 9 concurrent over target 3')).toEqual([{ reason: 'Scaled', message: 'scaled from 1 to 3: panic: 9 concurrent over target 3' }]);
    expect(revisionEvents(undefined, revStatus(1))).toEqual([{ reason: 'Scaled', message: 'scaled from 0 to 1' }]);
    expect(revisionEvents(revStatus(2), revStatus(2), 'r')).toEqual([]);
  });

  it('reports becoming ready once, and a failure per new reason', () => {
    const deploying = revStatus(1, cond('Ready', 'Unknown', 'Deploying'));
    const ready = revStatus(1, cond('Ready', 'True', 'WorkersReady', '1/1 workers ready'));
    expect(revisionEvents(deploying, ready)).toEqual([{ reason: 'RevisionReady', message: 'ready: 1/1 workers ready' }]);
    expect(revisionEvents(ready, revStatus(0, cond('Ready', 'True', 'ScaledToZero')))).toEqual([{ reason: 'Scaled', message: 'scaled from 1 to 0' }]);
    const crashing = revStatus(1, cond('Ready', 'False', 'WorkerCrashing', 'workers keep exiting'));
    expect(revisionEvents(ready, crashing)).toEqual([{ reason: 'RevisionFailed', message: 'WorkerCrashing: workers keep exiting' }]);
    expect(revisionEvents(crashing, crashing)).toEqual([]);
    expect(reasons(revisionEvents(crashing, revStatus(1, cond('Ready', 'False', 'SecretMissing', 'no secret'))))).toEqual(['RevisionFailed']);
  });
});
