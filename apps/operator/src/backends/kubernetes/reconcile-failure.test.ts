import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { reconcileFailure, withFailure, withSuccess } from './reconcile-failure.ts';

const apiErr = (code: number, message: string) => new ApiException(code, 'x', JSON.stringify({ kind: 'Status', message }), {});
const now = new Date('2026-12-01T00:00:00Z');
const later = new Date('2026-12-01T00:05:00Z');

describe('reconcileFailure', () => {
  it('an RBAC refusal keeps the API server’s words and says where to grant the verb', () => {
    const f = reconcileFailure(apiErr(403, 'deployments.apps "x" is forbidden: User "system:serviceaccount:o:op" cannot patch resource "deployments" in API group "apps"'));
    expect(f.reason).toBe('Forbidden');
    expect(f.message).toContain('cannot patch resource "deployments"');
    expect(f.message).toContain('ClusterRole');
  });

  it.each([
    [apiErr(422, 'bad'), 'Invalid'],
    [apiErr(409, 'conflict'), 'Conflict'],
    [apiErr(500, 'boom'), 'ApiError500'],
    [new Error('connect ECONNREFUSED'), 'ReconcileFailed'],
  ])('names other failures', (err, reason) => {
    expect(reconcileFailure(err).reason).toBe(reason);
  });

  it('reads a non-JSON body as the error message and caps long ones', () => {
    expect(reconcileFailure(new ApiException(500, 'x', 'not json', {})).message).toBe('not json');
    expect(reconcileFailure(new Error('y'.repeat(5000))).message).toHaveLength(1000);
  });
});

describe('withFailure / withSuccess', () => {
  it('records a failure, then marks it resolved on success; nothing is added when all went well', () => {
    const failed = withFailure([{ type: 'Ready', status: 'True', reason: 'WorkersReady' }], apiErr(403, 'nope'), now);
    expect(failed.find((c) => c.type === 'Reconciled')).toMatchObject({ status: 'False', reason: 'Forbidden' });
    expect(failed.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    const ok = withSuccess(failed, later)!;
    expect(ok.find((c) => c.type === 'Reconciled')).toMatchObject({ status: 'True', reason: 'Reconciled', message: 'recovered from Forbidden', lastTransitionTime: later.toISOString() });
    expect(withSuccess(ok, later)).toEqual(ok);
    expect(withSuccess([{ type: 'Ready', status: 'True', reason: 'x' }], later)).toEqual([{ type: 'Ready', status: 'True', reason: 'x' }]);
    expect(withSuccess(undefined, later)).toBeUndefined();
  });

  it('resolves a failure this process recorded even when the conditions read do not show it yet', () => {
    const stale = [{ type: 'Ready', status: 'True', reason: 'WorkersReady' }] as const;
    const ok = withSuccess(stale, later, 'Forbidden')!;
    expect(ok.find((c) => c.type === 'Reconciled')).toMatchObject({ status: 'True', message: 'recovered from Forbidden' });
    // A condition already True is kept as it is.
    expect(withSuccess(ok, new Date('2026-12-01T01:00:00Z'), 'Forbidden')).toEqual(ok);
    // The failure on the object wins over the remembered one.
    const failed = withFailure(stale, apiErr(409, 'c'), now);
    expect(withSuccess(failed, later, 'Forbidden')!.find((c) => c.type === 'Reconciled')!.message).toBe('recovered from Conflict');
  });
});
