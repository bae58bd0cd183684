import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { until } from '../../testing/spawn-server.ts';
import { RouterPods } from './router-pods.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';

let api: FakeApiServer;
let client: KubeClient;
beforeAll(async () => {
  api = await startFakeApiServer();
  client = new KubeClient(kubeConfigFor({ server: api.url }));
});
afterAll(async () => {
  await api.close();
});

const pod = (name: string, labels: Record<string, string>, status: { phase: string; podIP?: string }, adminPort?: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'orrery-system', labels },
  spec: { containers: [{ name: 'router', ports: [{ name: 'http', containerPort: 8080 }, ...(adminPort ? [{ name: 'admin', containerPort: adminPort }] : [])] }] },
  status,
});

describe('RouterPods (fake-apiserver): the admin URL of every running router pod', () => {
  it('lists running, selected pods with their admin port and follows changes', async () => {
    const router = { 'app.kubernetes.io/component': 'router', 'app.kubernetes.io/instance': 'orrery' };
    api.put(pod('router-a', router, { phase: 'Running', podIP: '10.0.0.1' }, 9191));
    api.put(pod('router-b', router, { phase: 'Running', podIP: 'fd00::2' })); // no admin port named: the flag's
    api.put(pod('router-c', router, { phase: 'Pending' })); // not scheduled yet: no IP
    api.put(pod('statesvc-a', { 'app.kubernetes.io/component': 'statesvc', 'app.kubernetes.io/instance': 'orrery' }, { phase: 'Running', podIP: '10.0.0.9' }, 9090));
    const pods = new RouterPods(client, { namespace: 'orrery-system', labelSelector: 'app.kubernetes.io/instance=orrery,app.kubernetes.io/component=router', adminPort: 9090 });
    pods.start();
    try {
      await pods.hasSynced();
      expect(pods.adminUrls()).toEqual(['http://10.0.0.1:9191', 'http://[fd00::2]:9090']);
      api.put(pod('router-c', router, { phase: 'Running', podIP: '10.0.0.3' }));
      await until(() => pods.adminUrls().length, (n) => n === 3, 10_000, 'the third router');
      expect(pods.adminUrls()).toContain('http://10.0.0.3:9090');
      await client.delete('v1', 'Pod', 'orrery-system', 'router-a');
      await until(() => pods.adminUrls(), (urls) => !urls.includes('http://10.0.0.1:9191'), 10_000, 'router-a gone');
      expect(pods.adminUrls()).toEqual(['http://10.0.0.3:9090', 'http://[fd00::2]:9090']);
    } finally {
      pods.stop();
    }
  });
});
