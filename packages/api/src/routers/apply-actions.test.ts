/**
 * The role check of actions asked for through a write (action-policy.ts) on the procedures that
 * write: resources.applyManifest of a RegistryCluster with registry requests in its annotation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, rejection, type Harness } from '../testing/api-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.as('admin').resources.applyManifest({ manifest: cluster() });
}, 60_000);
afterAll(() => h.close());

function cluster(requests?: unknown[], spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'RegistryCluster',
    metadata: { name: 'reg', ...(requests ? { annotations: { 'orrery.dev/requests': JSON.stringify(requests) } } : {}) },
    spec: { replicas: 3, ...spec },
  };
}
const stored = async () => (await h.store.get('RegistryCluster', 'default', 'reg'))!;
const lastAudit = async () => (await h.audit()).at(-1)!;

describe('resources.applyManifest with registry requests in orrery.dev/requests', () => {
  it.each([
    ['remove', 'registry.remove'],
    ['transfer-leader', 'registry.transferLeader'],
    ['replace', 'registry.remove'],
  ])('an operator asking for %s is refused like %s, the audit row names it, nothing is stored', async (action, procedure) => {
    const before = await stored();
    const err = await rejection(h.as('operator', 'otto').resources.applyManifest({ manifest: cluster([{ id: `r-${action}`, action, member: 'reg-1' }]) }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain(`may not request ${procedure} through metadata.annotations["orrery.dev/requests"] of RegistryCluster reg`);
    expect(err.message).toContain('it needs admin');
    const row = await lastAudit();
    expect(row).toMatchObject({ action: 'resources.applyManifest', who: 'otto', role: 'operator', result: 'error', target: 'RegistryCluster/default/reg' });
    expect(row.error).toContain(procedure);
    expect(row.after).toEqual({ requested: [{ action: procedure, via: 'metadata.annotations["orrery.dev/requests"]', detail: `${action} reg-1 (request r-${action})` }] });
    expect((await stored()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('an operator may ask for what its role may do directly (add-learner, promote), audited with the action', async () => {
    const r = await h.as('operator', 'otto').resources.applyManifest({ manifest: cluster([{ id: 'r-add', action: 'add-learner' }]) });
    expect(r.outcome).toBe('configured');
    expect((await lastAudit()).after).toMatchObject({ outcome: 'configured', requested: [{ action: 'registry.addLearner' }] });
  });

  it('re-applying requests already pending is not a new request (GitOps re-sync)', async () => {
    const pending = [{ id: 'r-admin', action: 'remove', member: 'reg-2' }];
    await h.as('admin').resources.applyManifest({ manifest: cluster(pending) });
    expect((await h.as('operator').resources.applyManifest({ manifest: cluster(pending) })).outcome).toBe('unchanged');
    expect((await lastAudit()).after).not.toHaveProperty('requested');
  });

  it('a malformed entry beside a remove does not hide it', async () => {
    const err = await rejection(h.as('operator').resources.applyManifest({ manifest: cluster([{ id: 'x' }, { id: 'r-sneak', action: 'remove', member: 'reg-0' }]) }));
    expect(err.code).toBe('FORBIDDEN');
  });

  it('an admin may ask for anything', async () => {
    const r = await h.as('admin').resources.applyManifest({ manifest: cluster([{ id: 'r-t', action: 'transfer-leader' }]) });
    expect(r.outcome).toBe('configured');
    expect((await lastAudit()).after).toMatchObject({ requested: [{ action: 'registry.transferLeader', detail: 'transfer-leader (request r-t)' }] });
  });

  it('spec.replaceUnhealthyAfter on an existing cluster needs admin (the operator would remove members by itself)', async () => {
    const err = await rejection(h.as('operator').resources.applyManifest({ manifest: cluster(undefined, { replaceUnhealthyAfter: '1s' }) }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toContain('may not request registry.remove through spec.replaceUnhealthyAfter');
  });

  it('a viewer is refused by the procedure itself before any of this', async () => {
    const err = await rejection(h.as('viewer').resources.applyManifest({ manifest: cluster([{ id: 'r-v', action: 'add-learner' }]) }));
    expect(err.message).toMatch(/role viewer may not do this; it needs operator/);
  });
});
