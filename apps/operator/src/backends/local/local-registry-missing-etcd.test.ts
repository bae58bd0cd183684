import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { connect } from '@orrery/db';
import { waitFor } from '@orrery/etcdcluster';
import type { RegistryCluster } from '@orrery/spec';
import { createLocalStore } from '@orrery/store';
import { RegistryClusterReconciler } from '../../registry-cluster/registry-cluster-reconciler.ts';
import { LocalRegistryClusterBackend } from './local-registry-cluster-backend.ts';

it('without an etcd binary the cluster reports Degraded/EtcdMissing with the fix, and nothing crashes', { timeout: 60_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orrery-rc-noetcd-'));
  const conn = connect({ url: '' });
  const store = await createLocalStore(conn);
  const reconciler = new RegistryClusterReconciler({ store, backend: new LocalRegistryClusterBackend({ dataDir, etcdBin: join(dataDir, 'no-such-etcd'), registryApi: false }), intervalMs: 200 });
  try {
    await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { namespace: 'default', name: 'reg' }, spec: { replicas: 3 } });
    await reconciler.start();
    const rc = await waitFor('Degraded status', 20_000, async () => {
      const r = (await store.get('RegistryCluster', 'default', 'reg')) as RegistryCluster;
      return r.status?.conditions?.some((c) => c.type === 'Degraded' && c.reason === 'EtcdMissing') ? r : undefined;
    });
    const degraded = rc.status!.conditions!.find((c) => c.type === 'Degraded')!;
    expect(degraded.message).toMatch(/apt-get install etcd-server/);
    expect(rc.status!.conditions!.find((c) => c.type === 'Available')?.status).toBe('False');
    // kstatus (Flux, kpt) reads Stalled=True as Failed: nothing runs until someone installs etcd.
    expect(rc.status!.conditions!.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'EtcdMissing' });
    expect(reconciler.processes()).toEqual([]);
  } finally {
    await reconciler.stop();
    await store.close();
    await conn.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
