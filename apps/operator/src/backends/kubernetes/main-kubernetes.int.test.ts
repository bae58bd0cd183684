import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnServer, until } from '../../testing/spawn-server.ts';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'orrery-operator.mjs');
let api: FakeApiServer;
let proc: SpawnedServer | undefined;

beforeAll(async () => {
  api = await startFakeApiServer();
});
afterAll(async () => {
  await proc?.stop('SIGKILL');
  await api.close();
});

describe('orrery-operator --backend kubernetes (fake-apiserver)', () => {
  it('leads, reconciles, answers admission and releases its lease on SIGTERM', { timeout: 90_000 }, async () => {
    proc = await spawnServer(bin, [
      '--backend', 'kubernetes', '--server', api.url, '--port', '0', '--webhook-port', '0', '--identity', 'op-1',
      '--lease-namespace', 'orrery-system', '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
    ]);
    const health = await until(async () => (await fetch(`${proc!.url}/healthz`)).json() as Promise<{ leader: boolean; identity: string }>, (h) => h.leader, 30_000, 'leadership');
    expect(health.identity).toBe('op-1');
    const client = new KubeClient(kubeConfigFor({ server: api.url }));
    await client.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'proc', namespace: 'default' }, spec: { template: { source: { inline: 'x' } } } });
    await until(() => api.get('apps/v1', 'Deployment', 'default', 'proc-00001-deployment'), Boolean, 30_000, 'deployment');
    const webhook = /webhook (http:\/\/\S+)/.exec(proc.output())![1]!;
    const res = await fetch(`${webhook}/validate`, {
      method: 'POST',
      body: JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'x', kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Function' }, operation: 'CREATE', namespace: 'default', object: { apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'BAD' }, spec: { template: { source: {} } } } },
      }),
    });
    expect(((await res.json()) as { response: { allowed: boolean } }).response.allowed).toBe(false);
    expect(await proc.stop('SIGTERM')).toBe(0);
    proc = undefined;
    expect((api.get('coordination.k8s.io/v1', 'Lease', 'orrery-system', 'orrery-operator')!.spec as { holderIdentity: string }).holderIdentity).toBe('');
  });
});
