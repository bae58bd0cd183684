/**
 * One keyspace, one owner on Kubernetes (issue 21 item 9; seed invariant S1). The webhook and the
 * store read the other Functions and then write, not atomically, so two racing creates can both
 * be admitted; no webhook runs here, as with the webhook off, so a second declaration is simply
 * taken. The reconciler gives the keyspace's token Secret only to the owner (first created, then
 * name): the other gets no revision and ConfigurationsReady=False state_keyspace_taken naming
 * the owner, loses a token Secret it had, and proceeds once the owner is deleted or moves.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { eventually } from '@orrery/kube-testenv';
import { type Condition, keyspaceTakenMessage } from '@orrery/spec';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { childName } from './render/labels.ts';
import { STATE_TOKEN_FILE } from '@orrery/spec';

const GV = 'orrery.dev/v1alpha1';
const MASTER = Buffer.alloc(32, 5);
const kube = operatorKubeSuite();
const cleanups = kube.cleanups;
let client: KubeClient;
beforeAll(() => void (client = kube.client));

const fnObj = (ns: string, name: string, keyspace: string): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: ns },
  spec: { template: { source: { inline: 'export default () => "hi"' } }, state: { keyspace } },
});
const configurations = async (ns: string, name: string) =>
  ((await client.get(GV, 'Function', ns, name))?.status as { conditions?: Condition[] } | undefined)?.conditions?.find((c) => c.type === 'ConfigurationsReady');
/** The token in a revision's state Secret, or undefined when there is none. */
const secretToken = async (ns: string, revision: string) => {
  const s = await client.get('v1', 'Secret', ns, childName(revision, 'state'));
  const data = (s as { data?: Record<string, string> } | undefined)?.data?.[STATE_TOKEN_FILE];
  return data ? (JSON.parse(Buffer.from(data, 'base64').toString()) as { token: string }).token : undefined;
};
/** Kubernetes stamps creation in whole seconds: a later second makes the order by time, not name. */
const nextSecond = () => new Promise((r) => setTimeout(r, 1_100));

async function operator(): Promise<string> {
  const ns = await kube.freshNs('ksown');
  const op = new KubernetesFunctionOperator({ client, namespace: ns, masterKey: MASTER, stateUrl: 'http://statesvc.invalid' });
  await op.start();
  cleanups.push(() => op.stop());
  return ns;
}

describe('a keyspace another Function owns, on Kubernetes', () => {
  it('the second declarer gets no token Secret and no revision, with the validation error’s words; proceeds once the owner is deleted', { timeout: 120_000 }, async () => {
    const ns = await operator();
    await client.apply(fnObj(ns, 'owner', 'shared'));
    await eventually('owner token', async () => (await secretToken(ns, 'owner-00001')) === deriveStateToken(MASTER, ns, 'shared'), 30_000);
    await nextSecond();
    // Named to come first by name: only the creation time makes it the second declarer.
    await client.apply(fnObj(ns, 'aaa-intruder', 'shared'));
    await eventually('intruder blocked', async () => (await configurations(ns, 'aaa-intruder'))?.reason === 'state_keyspace_taken', 30_000);
    expect((await configurations(ns, 'aaa-intruder'))?.message).toContain(keyspaceTakenMessage(ns, 'shared', 'owner'));
    expect(await client.get(GV, 'Revision', ns, 'aaa-intruder-00001')).toBeUndefined();

    await client.delete(GV, 'Function', ns, 'owner');
    await eventually('intruder proceeds with the token', async () => (await secretToken(ns, 'aaa-intruder-00001')) === deriveStateToken(MASTER, ns, 'shared'), 30_000);
    expect((await configurations(ns, 'aaa-intruder'))?.reason).not.toBe('state_keyspace_taken');
  });

  it('a Function that comes to declare a taken keyspace loses its token Secret; proceeds once the owner moves to another keyspace', { timeout: 120_000 }, async () => {
    const ns = await operator();
    await client.apply(fnObj(ns, 'owner', 'carts'));
    await nextSecond();
    await client.apply(fnObj(ns, 'late', 'late-own'));
    await eventually('late token', async () => (await secretToken(ns, 'late-00001')) === deriveStateToken(MASTER, ns, 'late-own'), 30_000);

    await client.apply(fnObj(ns, 'late', 'carts'));
    await eventually('late blocked', async () => (await configurations(ns, 'late'))?.reason === 'state_keyspace_taken', 30_000);
    await eventually('late token Secret gone', async () => (await secretToken(ns, 'late-00001')) === undefined, 30_000);
    expect((await configurations(ns, 'late'))?.message).toContain(keyspaceTakenMessage(ns, 'carts', 'owner'));

    await client.apply(fnObj(ns, 'owner', 'carts-v2'));
    await eventually('late proceeds with the token', async () => (await secretToken(ns, 'late-00001')) === deriveStateToken(MASTER, ns, 'carts'), 30_000);
    // The two Functions reconcile independently: the owner's Secret follows its new keyspace on its own pass.
    await eventually('owner holds its new keyspace token', async () => (await secretToken(ns, 'owner-00001')) === deriveStateToken(MASTER, ns, 'carts-v2'), 30_000);
  });
});
