/**
 * A pod that starts before the Secrets it needs exist waits, as with a kubelet: a required
 * secretKeyRef holds the container back (CreateContainerConfigError) and a Secret volume holds
 * the pod back (FailedMount); once an operator creates the Secrets, the container starts with
 * them without anyone touching the pod. The Orrery chart relies on this: the router and statesvc
 * start while the operator is still generating their credentials.
 */
import { CoreV1Api, type V1PodSpec } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, containerLog, createNamespace } from '../cluster-access.ts';

let core: CoreV1Api;
let ns: string;
let dispose: () => Promise<void>;

beforeAll(async () => {
  core = adminKubeConfig().makeApiClient(CoreV1Api);
  ({ name: ns, dispose } = await createNamespace('kubelet-secret-wait'));
});
afterAll(async () => dispose());

const pod = (name: string, spec: Omit<V1PodSpec, 'restartPolicy'>) => core.createNamespacedPod({ namespace: ns, body: { metadata: { name }, spec: { restartPolicy: 'Always', ...spec } } });
const waitingReason = async (name: string) => (await core.readNamespacedPod({ name, namespace: ns })).status?.containerStatuses?.[0]?.state?.waiting?.reason;
const secret = (name: string, data: Record<string, string>) => core.createNamespacedSecret({ namespace: ns, body: { metadata: { name }, stringData: data } });
const PRINT = "console.log('VALUE ' + (process.env.TOKEN ?? require('fs').readFileSync('/etc/s/token', 'utf8'))); setInterval(() => {}, 1000)";

describe('missing Secrets', () => {
  it('a required secretKeyRef keeps the container waiting (CreateContainerConfigError) until the Secret exists, then it starts with the value', { timeout: 90_000 }, async () => {
    await pod('env-waits', { containers: [{ name: 'c', image: 'orrery/runtime', command: ['node', '-e', PRINT], env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'made-later', key: 'token' } } }] }] });
    await waitFor('CreateContainerConfigError', 30_000, async () => ((await waitingReason('env-waits')) === 'CreateContainerConfigError' ? true : undefined), undefined, 250);
    const events = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=env-waits' });
    expect(events.items.map((e) => e.message).join('\n')).toContain('secret "made-later" not found');
    expect(containerLog(ns, 'env-waits', 'c')).toBe('');
    await secret('made-later', { token: 'generated-1' });
    const line = await waitFor('the container started with the value', 40_000, async () => containerLog(ns, 'env-waits', 'c').split('\n').find((l) => l.startsWith('VALUE ')), () => containerLog(ns, 'env-waits', 'c'), 250);
    expect(line).toBe('VALUE generated-1');
    expect((await core.readNamespacedPod({ name: 'env-waits', namespace: ns })).status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it('a Secret volume keeps the pod from starting (FailedMount) until the Secret exists', { timeout: 90_000 }, async () => {
    await pod('volume-waits', { volumes: [{ name: 's', secret: { secretName: 'mounted-later' } }], containers: [{ name: 'c', image: 'orrery/runtime', command: ['node', '-e', PRINT], volumeMounts: [{ name: 's', mountPath: '/etc/s' }] }] });
    await waitFor('FailedMount', 30_000, async () => {
      const events = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=volume-waits' });
      return events.items.some((e) => e.reason === 'FailedMount' && e.message?.includes('secret "mounted-later" not found')) ? true : undefined;
    }, undefined, 250);
    expect(containerLog(ns, 'volume-waits', 'c')).toBe('');
    await secret('mounted-later', { token: 'generated-2' });
    const line = await waitFor('the container started with the file', 60_000, async () => containerLog(ns, 'volume-waits', 'c').split('\n').find((l) => l.startsWith('VALUE ')), () => containerLog(ns, 'volume-waits', 'c'), 250);
    expect(line).toBe('VALUE generated-2');
  });
});
