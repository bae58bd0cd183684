/**
 * The test cluster's default StorageClass and its dynamic provisioner: a PersistentVolumeClaim of
 * the class gets a hostPath PersistentVolume in a folder of its own under the cluster's data dir,
 * pre-bound to the claim (the real PV controller of kube-controller-manager then binds them), and
 * a Released volume of the class is deleted with its folder (reclaimPolicy Delete), as
 * rancher's local-path-provisioner does on single-node clusters.
 *
 * Why not kube-controller-manager's own `--enable-hostpath-provisioner`: it makes its folders
 * under /tmp/hostpath_pv with mode 0750 owned by root (pkg/volume/hostpath, Provision), and
 * kubelets apply no fsGroup to hostPath volumes, so the non-root pods that need storage here
 * (etcd members as 65532, Postgres as the chart's uid) could not write to them. These folders are
 * 0777, like local-path-provisioner's.
 */
import { mkdirSync, chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeRequest } from './raw-request.ts';

export const DEFAULT_STORAGE_CLASS = 'standard';
export const HOSTPATH_PROVISIONER = 'kube-testenv.orrery.dev/hostpath';
const PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';

interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}
export interface Claim {
  metadata: Meta;
  spec?: { storageClassName?: string; volumeName?: string; accessModes?: string[]; resources?: { requests?: { storage?: string } }; volumeMode?: string };
  status?: { phase?: string };
}
export interface Volume {
  metadata: Meta;
  spec?: { storageClassName?: string; claimRef?: { namespace?: string; name?: string; uid?: string }; hostPath?: { path: string }; persistentVolumeReclaimPolicy?: string };
  status?: { phase?: string };
}
export interface StorageClassObject {
  metadata: Meta;
  provisioner: string;
  reclaimPolicy?: string;
}

export function defaultStorageClass(): StorageClassObject & { apiVersion: string; kind: string; volumeBindingMode: string } {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: HOSTPATH_PROVISIONER,
    reclaimPolicy: 'Delete',
    // One node: nothing to wait for before choosing where the volume lives.
    volumeBindingMode: 'Immediate',
  };
}

export interface ProvisionPlan {
  create: Volume[];
  /** Released volumes of ours with reclaimPolicy Delete: the folder and the object go. */
  remove: Volume[];
}

/** What to do now, from the cluster's claims, volumes and classes (pure). */
export function planProvisioning(claims: Claim[], volumes: Volume[], classes: StorageClassObject[], dataDir: string): ProvisionPlan {
  const ours = new Map(classes.filter((c) => c.provisioner === HOSTPATH_PROVISIONER).map((c) => [c.metadata.name, c]));
  const claimed = new Set(volumes.map((v) => v.spec?.claimRef?.uid).filter(Boolean));
  const create: Volume[] = [];
  for (const c of claims) {
    const cls = ours.get(c.spec?.storageClassName ?? '');
    if (!cls || c.spec?.volumeName || c.status?.phase === 'Bound' || c.metadata.deletionTimestamp || claimed.has(c.metadata.uid)) continue;
    if (c.spec?.volumeMode === 'Block') continue; // a folder cannot be a block device
    const name = `pvc-${c.metadata.uid}`;
    create.push({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [PROVISIONED_BY]: HOSTPATH_PROVISIONER } },
      spec: {
        storageClassName: cls.metadata.name,
        capacity: { storage: c.spec?.resources?.requests?.storage ?? '1Gi' },
        accessModes: c.spec?.accessModes?.length ? c.spec.accessModes : ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
        hostPath: { path: join(dataDir, name), type: 'DirectoryOrCreate' },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: c.metadata.namespace, name: c.metadata.name, uid: c.metadata.uid },
      },
    } as Volume);
  }
  const remove = volumes.filter(
    (v) => v.metadata.annotations?.[PROVISIONED_BY] === HOSTPATH_PROVISIONER && v.spec?.persistentVolumeReclaimPolicy === 'Delete' && ['Released', 'Failed'].includes(v.status?.phase ?? '') && !v.metadata.deletionTimestamp,
  );
  return { create, remove };
}

/** Runs the provisioner against the API server until stopped; the StorageClass is applied first. */
export class HostPathProvisioner {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly dataDir: string,
    private readonly log: (l: string) => void = () => {},
    private readonly intervalMs = 1000,
  ) {}

  async start(): Promise<void> {
    mkdirSync(this.dataDir, { recursive: true });
    chmodSync(this.dataDir, 0o711);
    const sc = defaultStorageClass();
    const r = await kubeRequest(this.kc, 'PATCH', `/apis/storage.k8s.io/v1/storageclasses/${sc.metadata.name}?fieldManager=kube-testenv&force=true`, sc, 'application/apply-patch+yaml');
    if (r.status >= 300) throw new Error(`StorageClass ${sc.metadata.name}: ${r.status} ${JSON.stringify(r.body)}`);
    const loop = () => {
      this.timer = setTimeout(() => {
        void this.pass()
          .catch((err: unknown) => this.log(`[hostpath-provisioner] ${(err as Error).message}`))
          .finally(() => {
            if (!this.stopped) loop();
          });
      }, this.intervalMs);
    };
    loop();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async list<T>(path: string): Promise<T[]> {
    const r = await kubeRequest(this.kc, 'GET', path);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    return (r.body.items as T[] | undefined) ?? [];
  }

  async pass(): Promise<void> {
    const [claims, volumes, classes] = await Promise.all([
      this.list<Claim>('/api/v1/persistentvolumeclaims'),
      this.list<Volume>('/api/v1/persistentvolumes'),
      this.list<StorageClassObject>('/apis/storage.k8s.io/v1/storageclasses'),
    ]);
    const plan = planProvisioning(claims, volumes, classes, this.dataDir);
    for (const pv of plan.create) {
      const dir = pv.spec!.hostPath!.path;
      mkdirSync(dir, { recursive: true });
      // Writable for the non-root pods that claim it (kubelets apply no fsGroup to hostPath).
      chmodSync(dir, 0o777);
      const r = await kubeRequest(this.kc, 'POST', '/api/v1/persistentvolumes', pv);
      if (r.status === 201) this.log(`[hostpath-provisioner] ${pv.metadata.name} for ${pv.spec!.claimRef!.namespace}/${pv.spec!.claimRef!.name}`);
      else if (r.status !== 409) throw new Error(`create ${pv.metadata.name}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    for (const pv of plan.remove) {
      const path = pv.spec?.hostPath?.path;
      // Only folders this provisioner made (under its data dir) are ever removed.
      if (path && path.startsWith(`${this.dataDir}/`)) rmSync(path, { recursive: true, force: true });
      await kubeRequest(this.kc, 'DELETE', `/api/v1/persistentvolumes/${pv.metadata.name}`);
    }
  }
}
