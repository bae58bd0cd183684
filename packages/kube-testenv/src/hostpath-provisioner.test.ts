import { describe, expect, it } from 'vitest';
import { type Claim, defaultStorageClass, HOSTPATH_PROVISIONER, planProvisioning, type Volume } from './hostpath-provisioner.ts';

const sc = defaultStorageClass();
const other = { metadata: { name: 'manual' }, provisioner: 'kubernetes.io/no-provisioner' };
const claim = (name: string, o: Partial<Claim['spec']> = {}, phase = 'Pending'): Claim => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: { storageClassName: 'standard', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, ...o },
  status: { phase },
});

describe('planProvisioning', () => {
  it('the default class is ours, default, and deletes what it made', () => {
    expect(sc).toMatchObject({ provisioner: HOSTPATH_PROVISIONER, reclaimPolicy: 'Delete', metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } });
  });

  it('makes a hostPath volume pre-bound to each pending claim of its class, in a folder of its own', () => {
    const plan = planProvisioning([claim('data-0'), claim('manual', { storageClassName: 'manual' }), claim('bound', { volumeName: 'pv-x' }, 'Bound')], [], [sc, other], '/data/pv');
    expect(plan.create).toEqual([
      {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pvc-uid-data-0', annotations: { 'pv.kubernetes.io/provisioned-by': HOSTPATH_PROVISIONER } },
        spec: {
          storageClassName: 'standard',
          capacity: { storage: '2Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Delete',
          hostPath: { path: '/data/pv/pvc-uid-data-0', type: 'DirectoryOrCreate' },
          claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'data-0', uid: 'uid-data-0' },
        },
      },
    ]);
    expect(plan.remove).toEqual([]);
  });

  it('makes nothing twice: a volume already pointing at the claim counts', () => {
    const pv: Volume = { metadata: { name: 'pvc-uid-data-0' }, spec: { claimRef: { uid: 'uid-data-0' } }, status: { phase: 'Available' } };
    expect(planProvisioning([claim('data-0')], [pv], [sc], '/d').create).toEqual([]);
  });

  it('skips claims being deleted and block-mode claims', () => {
    const deleting = { ...claim('a'), metadata: { ...claim('a').metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    expect(planProvisioning([deleting, claim('b', { volumeMode: 'Block' })], [], [sc], '/d').create).toEqual([]);
  });

  it('removes its own Released volumes with reclaimPolicy Delete, never others', () => {
    const mine = (name: string, phase: string, policy = 'Delete'): Volume => ({
      metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': HOSTPATH_PROVISIONER } },
      spec: { persistentVolumeReclaimPolicy: policy, hostPath: { path: `/d/${name}` } },
      status: { phase },
    });
    const foreign: Volume = { metadata: { name: 'static' }, spec: { persistentVolumeReclaimPolicy: 'Delete' }, status: { phase: 'Released' } };
    const plan = planProvisioning([], [mine('gone', 'Released'), mine('kept', 'Released', 'Retain'), mine('used', 'Bound'), foreign], [sc], '/d');
    expect(plan.remove.map((v) => v.metadata.name)).toEqual(['gone']);
  });
});
