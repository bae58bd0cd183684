import { describe, expect, it } from 'vitest';
import { looseRegistryRequests, REGISTRY_REQUEST_PROCEDURE, requestedActions } from './requested-actions.ts';

const ANN = 'orrery.dev/requests';
const rc = (o: { requests?: unknown; raw?: string; replicas?: number; replaceUnhealthyAfter?: string; handled?: string[] } = {}) => ({
  metadata: { annotations: o.raw !== undefined ? { [ANN]: o.raw } : o.requests !== undefined ? { [ANN]: JSON.stringify(o.requests) } : {} },
  spec: { ...(o.replicas !== undefined ? { replicas: o.replicas } : {}), ...(o.replaceUnhealthyAfter ? { replaceUnhealthyAfter: o.replaceUnhealthyAfter } : {}) },
  ...(o.handled ? { status: { handledRequests: o.handled } } : {}),
});
const actions = (stored: ReturnType<typeof rc> | undefined, next: ReturnType<typeof rc>) => requestedActions('RegistryCluster', stored, next).map((a) => a.action);

describe('requestedActions', () => {
  it('maps every registry request action to the procedure with its effect', () => {
    expect(REGISTRY_REQUEST_PROCEDURE).toEqual({
      'add-learner': 'registry.addLearner',
      promote: 'registry.promote',
      remove: 'registry.remove',
      'transfer-leader': 'registry.transferLeader',
      replace: 'registry.remove',
    });
  });

  it('new requests in the annotation, on create and on update', () => {
    const next = rc({ replicas: 3, requests: [{ id: 'r1', action: 'remove', member: 'reg-2' }, { id: 'r2', action: 'add-learner' }] });
    expect(requestedActions('RegistryCluster', undefined, next)).toEqual([
      { action: 'registry.remove', via: 'metadata.annotations["orrery.dev/requests"]', detail: 'remove reg-2 (request r1)' },
      { action: 'registry.addLearner', via: 'metadata.annotations["orrery.dev/requests"]', detail: 'add-learner (request r2)' },
    ]);
    expect(actions(rc({ replicas: 3 }), next)).toEqual(['registry.remove', 'registry.addLearner']);
  });

  it('requests already pending (same id, action, member) or handled are not new', () => {
    const pending = [{ id: 'r1', action: 'transfer-leader', member: 'reg-1' }];
    expect(actions(rc({ replicas: 3, requests: pending }), rc({ replicas: 3, requests: pending }))).toEqual([]);
    expect(actions(rc({ replicas: 3, handled: ['r9'] }), rc({ replicas: 3, requests: [{ id: 'r9', action: 'remove', member: 'reg-0' }] }))).toEqual([]);
    // the same id with another action or member is a new request
    expect(actions(rc({ replicas: 3, requests: pending }), rc({ replicas: 3, requests: [{ id: 'r1', action: 'remove', member: 'reg-1' }] }))).toEqual(['registry.remove']);
    expect(actions(rc({ replicas: 3, requests: pending }), rc({ replicas: 3, requests: [{ id: 'r1', action: 'transfer-leader', member: 'reg-2' }] }))).toEqual(['registry.transferLeader']);
  });

  it('a forced promote needs registry.forcePromote (admin), a plain one registry.promote; adding force to a pending promote is new', () => {
    const plain = [{ id: 'r1', action: 'promote', member: 'reg-4' }];
    const forced = [{ id: 'r1', action: 'promote', member: 'reg-4', force: true }];
    expect(requestedActions('RegistryCluster', undefined, rc({ requests: forced }))).toEqual([
      { action: 'registry.forcePromote', via: 'metadata.annotations["orrery.dev/requests"]', detail: 'promote (forced) reg-4 (request r1)' },
    ]);
    expect(actions(undefined, rc({ requests: plain }))).toEqual(['registry.promote']);
    expect(actions(rc({ replicas: 3, requests: plain }), rc({ replicas: 3, requests: forced }))).toEqual(['registry.forcePromote']);
    // only a literal true forces (the reconciler's schema refuses anything else)
    expect(actions(undefined, rc({ requests: [{ id: 'r2', action: 'promote', member: 'reg-4', force: 'yes' }] }))).toEqual(['registry.promote']);
  });

  it('reads entry by entry like the reconciler: one broken entry does not hide the others', () => {
    const next = rc({ replicas: 3, requests: [{ id: 'bad' }, 42, null, { action: 'remove', member: 'reg-2' }, { id: 'r5', action: 'replace', member: 'reg-1', extra: true }, { id: 'r6', action: 'reboot' }] });
    expect(actions(undefined, next)).toEqual(['registry.remove', 'registry.remove']);
  });

  it.each([['not json', '{'], ['an object', '{"id":"r1","action":"remove"}'], ['empty', ''], ['a string', '"remove"']])('an annotation that is %s asks for nothing', (_w, raw) => {
    expect(actions(undefined, rc({ raw }))).toEqual([]);
    expect(looseRegistryRequests({ [ANN]: raw })).toEqual([]);
  });

  it('a changed spec.replicas on an existing cluster is registry.scale; absent means the default 3', () => {
    expect(actions(rc({ replicas: 3 }), rc({ replicas: 5 }))).toEqual(['registry.scale']);
    expect(actions(rc({ replicas: 5 }), rc({}))).toEqual(['registry.scale']);
    expect(actions(rc({ replicas: 3 }), rc({}))).toEqual([]);
    expect(actions(undefined, rc({ replicas: 7 }))).toEqual([]); // creating is not scaling
    expect(actions(rc({ replicas: 3 }), rc({ replicas: 4 }))).toEqual([]); // invalid: validation refuses it
    expect(requestedActions('RegistryCluster', rc({ replicas: 3 }), rc({ replicas: 1 }))[0]).toMatchObject({ via: 'spec.replicas', detail: '3 → 1' });
  });

  it('setting or changing replaceUnhealthyAfter on an existing cluster is registry.remove; unsetting it is not', () => {
    expect(actions(rc({ replicas: 3 }), rc({ replicas: 3, replaceUnhealthyAfter: '1s' }))).toEqual(['registry.remove']);
    expect(actions(rc({ replicas: 3, replaceUnhealthyAfter: '5m' }), rc({ replicas: 3, replaceUnhealthyAfter: '1s' }))).toEqual(['registry.remove']);
    expect(actions(rc({ replicas: 3, replaceUnhealthyAfter: '5m' }), rc({ replicas: 3, replaceUnhealthyAfter: '5m' }))).toEqual([]);
    expect(actions(rc({ replicas: 3, replaceUnhealthyAfter: '5m' }), rc({ replicas: 3 }))).toEqual([]);
    expect(actions(undefined, rc({ replicas: 3, replaceUnhealthyAfter: '1s' }))).toEqual([]);
  });

  it('other kinds ask for nothing', () => {
    expect(requestedActions('Function', undefined, rc({ requests: [{ id: 'r1', action: 'remove' }] }))).toEqual([]);
  });
});
