import { describe, expect, it } from 'vitest';
import { learnerPromotion, type LearnerObservation } from '@orrery/spec';
import type { ObservedMember } from './plan-membership.ts';
import { decideRequest, nextRequest, parseRequests, REQUESTS_ANNOTATION } from './plan-request.ts';

const m = (ordinal: number, over: Partial<ObservedMember> = {}): ObservedMember => ({
  name: `reg-${ordinal}`, ordinal, id: `a${ordinal}`, role: 'voter', inCluster: true, healthy: true, isLeader: ordinal === 1, local: true, ...over,
});

const look = (member: string, poll: number, lag: number): LearnerObservation => ({
  member, healthy: true, appliedIndex: 10_000 - lag, leader: 'reg-1', leaderTerm: 2, leaderCommittedIndex: 10_000, observedAt: new Date(poll * 2000).toISOString(),
});
const caughtUp = (member: string) => learnerPromotion(member, look(member, 1, 5), look(member, 2, 3));
const lagging = (member: string, lag: number) => learnerPromotion(member, look(member, 1, 5), look(member, 2, lag));

describe('parseRequests', () => {
  it('reads a JSON list and reports bad entries instead of throwing', () => {
    const { requests, problems } = parseRequests({
      [REQUESTS_ANNOTATION]: JSON.stringify([{ id: 'r1', action: 'transfer-leader', member: 'reg-2' }, { action: 'promote' }, { id: 'r3', action: 'explode' }]),
    });
    expect(requests).toEqual([{ id: 'r1', action: 'transfer-leader', member: 'reg-2' }]);
    expect(problems).toHaveLength(2);
    expect(parseRequests({ [REQUESTS_ANNOTATION]: '{nope' }).problems[0]).toMatch(/not JSON/);
    expect(parseRequests(undefined)).toEqual({ requests: [], problems: [] });
  });
  it('accepts the informational fields writers add (requestedBy, requestedAt)', () => {
    const { requests } = parseRequests({ [REQUESTS_ANNOTATION]: JSON.stringify([{ id: 'r1', action: 'replace', member: 'reg-3', requestedBy: 'alice', requestedAt: '2026-11-30T00:00:00Z' }]) });
    expect(requests).toEqual([{ id: 'r1', action: 'replace', member: 'reg-3' }]);
  });
  it('runs each id once, in order', () => {
    const reqs = [{ id: 'a', action: 'promote' as const }, { id: 'b', action: 'remove' as const }];
    expect(nextRequest(reqs, undefined)?.id).toBe('a');
    expect(nextRequest(reqs, ['a'])?.id).toBe('b');
    expect(nextRequest(reqs, ['a', 'b'])).toBeUndefined();
  });
});

describe('decideRequest', () => {
  const three = [m(1), m(2), m(3)];
  it('transfers leadership to the named voter or the lowest other healthy voter', () => {
    expect(decideRequest({ id: 'x', action: 'transfer-leader', member: 'reg-3' }, three)).toEqual({ kind: 'transfer-leader', from: 'reg-1', to: 'reg-3' });
    expect(decideRequest({ id: 'x', action: 'transfer-leader' }, three)).toEqual({ kind: 'transfer-leader', from: 'reg-1', to: 'reg-2' });
    expect(decideRequest({ id: 'x', action: 'transfer-leader', member: 'reg-1' }, three).kind).toBe('reject');
    expect(decideRequest({ id: 'x', action: 'transfer-leader', member: 'reg-9' }, three)).toMatchObject({ kind: 'reject', message: 'no member named reg-9' });
    expect(decideRequest({ id: 'x', action: 'transfer-leader', member: 'reg-4' }, [...three, m(4, { role: 'learner' })]).kind).toBe('reject');
  });
  it('runs the planner\'s add-learner step when voters < spec.replicas (auto-promoted later)', () => {
    expect(decideRequest({ id: 'x', action: 'add-learner' }, three, { kind: 'add-learner', name: 'reg-4', ordinal: 4, message: '' }, 'reg')).toEqual({ kind: 'add-learner', name: 'reg-4', ordinal: 4, held: false });
  });
  it('otherwise adds a held learner on top of spec.replicas, with the lowest free ordinal', () => {
    expect(decideRequest({ id: 'x', action: 'add-learner' }, three, { kind: 'steady', message: '' }, 'reg')).toEqual({ kind: 'add-learner', name: 'reg-4', ordinal: 4, held: true });
    expect(decideRequest({ id: 'x', action: 'add-learner' }, [m(1), m(3)], { kind: 'steady', message: '' }, 'reg')).toMatchObject({ name: 'reg-2', ordinal: 2 });
  });
  it('refuses a second learner (etcd allows one) and acts only with a leader', () => {
    expect(decideRequest({ id: 'x', action: 'add-learner' }, [...three, m(4, { role: 'learner' })], { kind: 'steady', message: '' }, 'reg')).toMatchObject({
      kind: 'reject',
      message: expect.stringMatching(/one learner at a time and reg-4/) as unknown,
    });
    expect(decideRequest({ id: 'x', action: 'add-learner' }, [m(1, { isLeader: false }), m(2), m(3)], { kind: 'steady', message: '' }, 'reg')).toMatchObject({ kind: 'reject', message: expect.stringMatching(/no leader/) as unknown });
  });
  it('promotes only learners, and only caught-up ones by the shared rule', () => {
    const four = [...three, m(4, { role: 'learner' })];
    expect(decideRequest({ id: 'x', action: 'promote', member: 'reg-4' }, four, undefined, 'reg', caughtUp('reg-4'))).toEqual({ kind: 'promote', member: 'reg-4' });
    expect(decideRequest({ id: 'x', action: 'promote', member: 'reg-2' }, three, undefined, 'reg', caughtUp('reg-4')).kind).toBe('reject');
  });
  it('refuses to promote a learner that is not caught up, naming the lag and what to wait for', () => {
    const four = [...three, m(4, { role: 'learner' })];
    const d = decideRequest({ id: 'x', action: 'promote', member: 'reg-4' }, four, undefined, 'reg', lagging('reg-4', 1_234));
    expect(d).toEqual({
      kind: 'reject',
      message:
        "reg-4 is not caught up: learner reg-4 is 1234 entries behind the leader reg-1 (applied 8766 of committed 10000); wait until it is within 100 entries of the leader's committed index, healthy, for 2 polls in a row under one leader (an admin may force it: registry.forcePromote)",
    });
    // no verdict, or a verdict about another learner, is not a yes
    expect(decideRequest({ id: 'x', action: 'promote', member: 'reg-4' }, four, undefined, 'reg').kind).toBe('reject');
    expect(decideRequest({ id: 'x', action: 'promote', member: 'reg-4' }, four, undefined, 'reg', caughtUp('reg-5')).kind).toBe('reject');
    // forced: the rule is skipped (etcd still applies its own floor)
    expect(decideRequest({ id: 'x', action: 'promote', member: 'reg-4', force: true }, four, undefined, 'reg', lagging('reg-4', 1_234))).toEqual({ kind: 'promote', member: 'reg-4' });
    expect(decideRequest({ id: 'x', action: 'promote', member: 'reg-2', force: true }, three).kind).toBe('reject');
  });
  it('reads force from the annotation', () => {
    const { requests } = parseRequests({ [REQUESTS_ANNOTATION]: JSON.stringify([{ id: 'r1', action: 'promote', member: 'reg-4', force: true }, { id: 'r2', action: 'promote', member: 'reg-4' }]) });
    expect(requests).toEqual([{ id: 'r1', action: 'promote', member: 'reg-4', force: true }, { id: 'r2', action: 'promote', member: 'reg-4' }]);
  });
  it('refuses removals that break quorum', () => {
    expect(decideRequest({ id: 'x', action: 'remove', member: 'reg-3' }, three)).toEqual({ kind: 'remove', member: 'reg-3' });
    expect(decideRequest({ id: 'x', action: 'replace', member: 'reg-3' }, [m(1), m(2, { healthy: false }), m(3)]).kind).toBe('reject');
    expect(decideRequest({ id: 'x', action: 'remove', member: 'reg-1' }, [m(1)]).kind).toBe('reject');
    expect(decideRequest({ id: 'x', action: 'remove' }, three).kind).toBe('reject');
  });
});
