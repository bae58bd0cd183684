import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { EVENT_REASONS } from '../../events/event-recorder.ts';
import { describeConflicts, fieldConflicts, takeoverEvent } from './field-conflicts.ts';

const conflict = (causes: unknown[]) => new ApiException(409, 'x', JSON.stringify({ kind: 'Status', reason: 'Conflict', details: { causes } }), {});

describe('fieldConflicts', () => {
  it('reads each conflicting field and its manager from the API server’s causes', () => {
    const err = conflict([
      { reason: 'FieldManagerConflict', field: '.spec.template.spec.containers[name="runtime"].image', message: 'conflict with "kubectl-edit" using apps/v1' },
      { reason: 'FieldManagerConflict', field: '.metadata.labels.team', message: 'conflict with "argocd-controller"' },
    ]);
    expect(fieldConflicts(err)).toEqual([
      { field: '.spec.template.spec.containers[name="runtime"].image', manager: 'kubectl-edit' },
      { field: '.metadata.labels.team', manager: 'argocd-controller' },
    ]);
    expect(describeConflicts(fieldConflicts(err))).toBe('.spec.template.spec.containers[name="runtime"].image (owned by "kubectl-edit"), .metadata.labels.team (owned by "argocd-controller")');
  });

  it('is empty for every other error, including an optimistic-concurrency 409', () => {
    expect(fieldConflicts(new ApiException(409, 'x', JSON.stringify({ message: 'the object has been modified' }), {}))).toEqual([]);
    expect(fieldConflicts(new ApiException(409, 'x', 'not json', {}))).toEqual([]);
    expect(fieldConflicts(new ApiException(422, 'x', '{}', {}))).toEqual([]);
    expect(fieldConflicts(new Error('boom'))).toEqual([]);
  });
});

describe('takeoverEvent', () => {
  it('is a Warning naming the fields and who owned them', () => {
    const e = takeoverEvent({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n', uid: 'u1' } }, [{ field: '.spec.replicas', manager: 'kubectl-scale' }]);
    expect(e.reason).toBe('FieldsTakenOver');
    expect(EVENT_REASONS[e.reason]).toBe('Warning');
    expect(e.message).toContain('Deployment d is rendered by Orrery');
    expect(e.message).toContain('.spec.replicas (owned by "kubectl-scale")');
  });
});
