/**
 * The test cluster's default StorageClass (hostpath-provisioner.ts) on the real control plane: a
 * claim that names no class gets `standard` from the API server's DefaultStorageClass admission,
 * a volume of its own from the provisioner, is bound by kube-controller-manager's PV controller,
 * and a non-root pod writes to it; deleting the claim deletes the volume and its folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { describe, expect, it } from 'vitest';
import { containerLog } from './cluster-access.ts';
import { namespaceForFile } from './namespace-for-file.ts';
import { DEFAULT_STORAGE_CLASS, HOSTPATH_PROVISIONER } from './hostpath-provisioner.ts';

const { kc, ns } = namespaceForFile('default-storage');
const core = kc.makeApiClient(CoreV1Api);
const storage = kc.makeApiClient(StorageV1Api);

describe('the default StorageClass', () => {
  it('is the cluster default, served by the hostPath provisioner', async () => {
    const sc = await storage.readStorageClass({ name: DEFAULT_STORAGE_CLASS });
    expect(sc.provisioner).toBe(HOSTPATH_PROVISIONER);
    expect(sc.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class']).toBe('true');
  });

  it('provisions a claim without a class, a non-root pod writes to it, and deleting the claim deletes the volume and its folder', { timeout: 120_000 }, async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: ns(), body: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } } } } });
    const claim = await waitFor('the claim bound', 60_000, async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns() });
      return c.status?.phase === 'Bound' ? c : undefined;
    }, undefined, 250);
    expect(claim.spec?.storageClassName).toBe(DEFAULT_STORAGE_CLASS);
    const pv = await core.readPersistentVolume({ name: claim.spec!.volumeName! });
    expect(pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by']).toBe(HOSTPATH_PROVISIONER);
    expect(pv.spec?.capacity?.storage).toBe('64Mi');
    const dir = pv.spec!.hostPath!.path;

    await core.createNamespacedPod({
      namespace: ns(),
      body: {
        metadata: { name: 'writer' },
        spec: {
          restartPolicy: 'Never',
          securityContext: { runAsUser: 65532, runAsGroup: 65532, runAsNonRoot: true },
          volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }],
          containers: [{ name: 'c', image: 'orrery/runtime', command: ['node', '-e', "require('fs').writeFileSync('/data/x', 'written by ' + process.getuid()); console.log('DONE')"], volumeMounts: [{ name: 'd', mountPath: '/data' }] }],
        },
      },
    });
    await waitFor('the pod wrote', 60_000, async () => (existsSync(`${dir}/x`) ? true : undefined), () => containerLog(ns(), 'writer', 'c'), 250);
    expect(readFileSync(`${dir}/x`, 'utf8')).toBe('written by 65532');

    await core.deleteNamespacedPod({ name: 'writer', namespace: ns(), gracePeriodSeconds: 0 });
    await waitFor('the pod gone', 60_000, async () => (await core.listNamespacedPod({ namespace: ns() })).items.length === 0 || undefined, undefined, 250);
    await core.deleteNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns() });
    await waitFor('the volume deleted', 60_000, async () => {
      try {
        await core.readPersistentVolume({ name: pv.metadata!.name! });
        return undefined;
      } catch (err) {
        return (err as { code?: number }).code === 404 ? true : undefined;
      }
    }, undefined, 500);
    expect(existsSync(dir)).toBe(false);
  });
});
