/**
 * RouterPods against the real API server, with real router pods (image `orrery/router`, run by the
 * process kubelet in their own network namespaces): the admin URL of every Running router pod, at
 * the pod's own IP, as the admin API uses it to sum live counters over all replicas. The URL
 * format itself (named admin port, fallback port, IPv6 brackets) is pod-admin-url.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PatchStrategy } from '@kubernetes/client-node';
import { adminKubeConfig, createNamespace, eventually, NETWORK, NODE_NAME } from '@orrery/kube-testenv';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { RouterPods } from './router-pods.ts';
import { createRoutesConfigMap, defaultServiceAccount, routerPod } from './testing/kube-fixtures.ts';

let client: KubeClient;
let ns = '';
let dispose: () => Promise<void> = async () => {};
const nodeLabel = `orrery.dev/router-pods-test-${process.pid}`;

const labelNode = (value: string | null) =>
  client.objects.patch({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE_NAME, labels: { [nodeLabel]: value } } } as unknown as KubeObject, undefined, undefined, 'router-pods-test', undefined, PatchStrategy.MergePatch);

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: ns, dispose } = await createNamespace('router-pods'));
  await defaultServiceAccount(client, ns);
  await createRoutesConfigMap(client, ns);
});
afterAll(async () => {
  await labelNode(null).catch(() => undefined);
  await dispose();
});

const podIP = async (name: string) => ((await client.get<KubeObject & { status?: { podIP?: string } }>('v1', 'Pod', ns, name))?.status?.podIP);

describe('RouterPods (real API server, real router pods)', () => {
  it('lists the admin URL of running, selected router pods at their pod IPs and follows changes', { timeout: 180_000 }, async () => {
    const router = { 'app.kubernetes.io/component': 'router', 'app.kubernetes.io/instance': 'orrery' };
    await client.create(routerPod(ns, 'router-a', { labels: router, adminPort: 9191 }));
    // No container port named admin: the operator's --router-admin-port applies.
    await client.create(routerPod(ns, 'router-b', { labels: router, adminPort: 9090, nameAdminPort: false }));
    // No node carries this label (yet): the scheduler leaves the pod Pending, without an IP.
    await client.create(routerPod(ns, 'router-c', { labels: router, adminPort: 9090, nodeSelector: { [nodeLabel]: 'yes' } }));
    // Another component of the same release: never asked.
    await client.create(routerPod(ns, 'statesvc-a', { labels: { 'app.kubernetes.io/component': 'statesvc', 'app.kubernetes.io/instance': 'orrery' }, adminPort: 9090 }));

    const pods = new RouterPods(client, { namespace: ns, labelSelector: 'app.kubernetes.io/instance=orrery,app.kubernetes.io/component=router', adminPort: 9090 });
    pods.start();
    try {
      await pods.hasSynced();
      const urls = await eventually('router-a and router-b running', () => (pods.adminUrls().length === 2 ? pods.adminUrls() : undefined), 120_000);
      const [ipA, ipB] = [await podIP('router-a'), await podIP('router-b')];
      expect(ipA).toMatch(new RegExp(`^${NETWORK.nodePodPrefix.replace(/\./g, '\\.')}\\d+$`));
      expect(urls).toEqual([`http://${ipA}:9191`, `http://${ipB}:9090`].sort());
      // Each URL is the router's real admin listener, reached at the pod's own address.
      for (const u of urls) {
        const health = (await eventually(`${u}/healthz`, async () => (await fetch(`${u}/healthz`)).json() as Promise<{ routerId?: string }>));
        expect([`router-a`, `router-b`]).toContain(health.routerId);
      }
      expect(((await client.get('v1', 'Pod', ns, 'router-c'))!.status as { phase?: string }).phase).toBe('Pending');

      // The node gets the label: the scheduler binds router-c, the kubelet starts it, it shows up.
      await labelNode('yes');
      await eventually('the third router', () => pods.adminUrls().length === 3, 120_000);
      const ipC = await podIP('router-c');
      expect(pods.adminUrls()).toContain(`http://${ipC}:9090`);

      // Graceful deletion: the pod leaves the list as soon as it is terminating.
      await client.delete('v1', 'Pod', ns, 'router-a');
      await eventually('router-a gone', () => !pods.adminUrls().includes(`http://${ipA}:9191`), 30_000);
      expect(pods.adminUrls()).toEqual([`http://${ipB}:9090`, `http://${ipC}:9090`].sort());
    } finally {
      pods.stop();
    }
  });
});
