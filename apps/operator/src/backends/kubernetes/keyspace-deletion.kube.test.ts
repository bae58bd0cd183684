/**
 * The keyspace deletion policy on Kubernetes (issue 21 item 16): `spec.state.onDelete` drives the
 * keyspace-cleanup finalizer (the deprecated annotation only when the field is absent), and a
 * Function deleted with `delete` never wipes a keyspace another Function still declares (item 9:
 * here two Functions share one because no webhook runs, as with the webhook off).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@orrery/kube-testenv';
import { KEYSPACE_DELETION_POLICY_ANNOTATION as KEYSPACE_POLICY_ANNOTATION } from '@orrery/spec';
import { KEYSPACE_FINALIZER } from '../../function/function-backend.ts';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';

const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
const cleanups = kube.cleanups;
let client: KubeClient;
beforeAll(() => void (client = kube.client));

const fnObj = (ns: string, name: string, state: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: ns, ...(annotations ? { annotations } : {}) },
  spec: { template: { source: { inline: 'export default () => "hi"' } }, state },
});
const finalizers = async (ns: string, name: string) => (await client.get(GV, 'Function', ns, name))?.metadata.finalizers ?? [];

async function operator(): Promise<{ ns: string; deleted: string[] }> {
  const ns = await kube.freshNs('ksdel');
  const deleted: string[] = [];
  const op = new KubernetesFunctionOperator({ client, namespace: ns, deleteKeyspace: async (n, k) => void deleted.push(`${n}/${k}`) });
  await op.start();
  cleanups.push(() => op.stop());
  return { ns, deleted };
}

async function deleteAndWait(ns: string, name: string): Promise<void> {
  await client.delete(GV, 'Function', ns, name);
  await eventually(`${name} gone`, async () => !(await client.get(GV, 'Function', ns, name)), 60_000);
}

describe('keyspace deletion policy on Kubernetes', () => {
  it('spec.state.onDelete decides the finalizer and the cleanup; the deprecated annotation only when the field is absent', { timeout: 120_000 }, async () => {
    const { ns, deleted } = await operator();
    await client.apply(fnObj(ns, 'wiped', { keyspace: 'wiped-ks', onDelete: 'delete' }));
    await client.apply(fnObj(ns, 'legacy', { keyspace: 'legacy-ks' }, { [KEYSPACE_POLICY_ANNOTATION]: 'delete' }));
    await client.apply(fnObj(ns, 'overruled', { keyspace: 'overruled-ks', onDelete: 'retain' }, { [KEYSPACE_POLICY_ANNOTATION]: 'delete' }));
    await client.apply(fnObj(ns, 'kept', { keyspace: 'kept-ks' }));
    await eventually('finalizer on wiped', async () => (await finalizers(ns, 'wiped')).includes(KEYSPACE_FINALIZER));
    await eventually('finalizer on legacy', async () => (await finalizers(ns, 'legacy')).includes(KEYSPACE_FINALIZER));
    // The reconciler has seen the others once it created their first revisions.
    for (const n of ['overruled', 'kept']) await eventually(`${n} reconciled`, () => client.get(GV, 'Revision', ns, `${n}-00001`));
    expect(await finalizers(ns, 'overruled')).toEqual([]);
    expect(await finalizers(ns, 'kept')).toEqual([]);
    for (const n of ['wiped', 'legacy', 'overruled', 'kept']) await deleteAndWait(ns, n);
    expect(deleted.sort()).toEqual([`${ns}/legacy-ks`, `${ns}/wiped-ks`]);
  });

  it('switching onDelete from delete to retain drops the finalizer: nothing is deleted', { timeout: 120_000 }, async () => {
    const { ns, deleted } = await operator();
    await client.apply(fnObj(ns, 'changed', { keyspace: 'changed-ks', onDelete: 'delete' }));
    await eventually('finalizer', async () => (await finalizers(ns, 'changed')).includes(KEYSPACE_FINALIZER));
    await client.apply(fnObj(ns, 'changed', { keyspace: 'changed-ks', onDelete: 'retain' }));
    await eventually('finalizer dropped', async () => !(await finalizers(ns, 'changed')).includes(KEYSPACE_FINALIZER));
    await deleteAndWait(ns, 'changed');
    expect(deleted).toEqual([]);
  });

  it('deleting a Function with onDelete: delete never wipes a keyspace another Function still declares', { timeout: 120_000 }, async () => {
    const { ns, deleted } = await operator();
    await client.apply(fnObj(ns, 'owner', { keyspace: 'shared' }));
    await eventually('owner reconciled', () => client.get(GV, 'Revision', ns, 'owner-00001'));
    // No webhook here: the API server takes a second declaration, as with the webhook off.
    await client.apply(fnObj(ns, 'intruder', { keyspace: 'shared', onDelete: 'delete' }));
    await eventually('finalizer on intruder', async () => (await finalizers(ns, 'intruder')).includes(KEYSPACE_FINALIZER));
    await deleteAndWait(ns, 'intruder');
    expect(deleted).toEqual([]);
    // Once nobody else declares it, the policy applies.
    await client.apply(fnObj(ns, 'owner', { keyspace: 'shared', onDelete: 'delete' }));
    await eventually('finalizer on owner', async () => (await finalizers(ns, 'owner')).includes(KEYSPACE_FINALIZER));
    await deleteAndWait(ns, 'owner');
    expect(deleted).toEqual([`${ns}/shared`]);
  });
});
