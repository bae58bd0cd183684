import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { V1ConfigMap, V1PersistentVolume, V1PersistentVolumeClaim, V1Pod, V1Secret, V1Volume } from '@kubernetes/client-node';
import { type ApiClient, isNotFound } from './api-client.ts';
import { writeAtomically } from './atomic-writer.ts';
import type { VolumeOnHost } from './container-config.ts';
import type { NodeAllocatable, PodPlacement } from './downward-api.ts';
import type { ServiceAccountTokens } from './service-account-tokens.ts';
import { configMapPayload, downwardAPIPayload, MountError, projectedPayload, secretPayload, volumeDefaultMode, type VolumeObjects, withFsGroup } from './volume-payloads.ts';

export interface PodVolumesContext {
  api: ApiClient;
  tokens: ServiceAccountTokens;
  /** `<kubelet dir>/pods/<ns>_<name>_<uid>` */
  podDir: string;
  /** Folders of PersistentVolumeClaims without a hostPath/local PersistentVolume. */
  claimsDir: string;
  placement: PodPlacement;
  allocatable: NodeAllocatable;
}

const encode = (s: string) => encodeURIComponent(s);

/** The kubelet's ownership pass for fsGroup (pkg/volume SetVolumeOwnership) on a writable volume. */
export function applyFsGroup(root: string, gid: number): void {
  const visit = (p: string) => {
    const st = lstatSync(p);
    chownSync(p, -1, gid);
    if (st.isSymbolicLink()) return;
    const mask = st.isDirectory() ? 0o2000 | 0o110 | 0o660 : 0o660;
    chmodSync(p, (st.mode & 0o7777) | mask);
    if (st.isDirectory()) for (const e of readdirSync(p)) visit(join(p, e));
  };
  visit(root);
}

/**
 * A pod's volumes as folders under its pod folder (or the host paths they name), set up before
 * its containers start and refreshed while it runs (Secrets, ConfigMaps and the downward API
 * change, ServiceAccount tokens are renewed), each through the atomic writer.
 */
export class PodVolumes {
  private readonly ready = new Map<string, VolumeOnHost>();

  constructor(
    private readonly ctx: PodVolumesContext,
    private pod: V1Pod,
  ) {}

  update(pod: V1Pod): void {
    this.pod = pod;
  }

  private dirOf(kind: string, name: string): string {
    return join(this.ctx.podDir, 'volumes', `kubernetes.io~${kind}`, name);
  }

  private async fetchObjects(): Promise<VolumeObjects> {
    const secrets = new Map<string, V1Secret | undefined>();
    const configMaps = new Map<string, V1ConfigMap | undefined>();
    const ns = this.pod.metadata!.namespace!;
    const want = { secrets: new Set<string>(), configMaps: new Set<string>() };
    for (const v of this.pod.spec?.volumes ?? []) {
      if (v.secret?.secretName) want.secrets.add(v.secret.secretName);
      if (v.configMap?.name) want.configMaps.add(v.configMap.name);
      for (const s of v.projected?.sources ?? []) {
        if (s.secret?.name) want.secrets.add(s.secret.name);
        if (s.configMap?.name) want.configMaps.add(s.configMap.name);
      }
    }
    // One GET per object: the Node authorizer lets a node read exactly the objects its pods name.
    const get = async <T>(path: string): Promise<T | undefined> => {
      try {
        return await this.ctx.api.get<T>(path);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw new MountError((err as Error).message);
      }
    };
    for (const n of want.secrets) secrets.set(n, await get<V1Secret>(`/api/v1/namespaces/${ns}/secrets/${encode(n)}`));
    for (const n of want.configMaps) configMaps.set(n, await get<V1ConfigMap>(`/api/v1/namespaces/${ns}/configmaps/${encode(n)}`));
    return { secrets, configMaps };
  }

  private async tokens(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const v of this.pod.spec?.volumes ?? []) {
      for (const s of v.projected?.sources ?? []) {
        if (!s.serviceAccountToken) continue;
        try {
          out.set(JSON.stringify(s.serviceAccountToken), await this.ctx.tokens.tokenFor(this.pod, s.serviceAccountToken));
        } catch (err) {
          throw new MountError(`failed to fetch token: ${(err as Error).message}`, { cause: err });
        }
      }
    }
    return out;
  }

  /** Sets every volume up (idempotent); throws MountError naming the first volume that cannot be. */
  async setUp(): Promise<Map<string, VolumeOnHost>> {
    const objects = await this.fetchObjects();
    const tokens = await this.tokens();
    for (const v of this.pod.spec?.volumes ?? []) {
      try {
        this.ready.set(v.name, await this.setUpOne(v, objects, tokens));
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        throw new MountError(`MountVolume.SetUp failed for volume "${v.name}" : ${msg}`);
      }
    }
    return new Map(this.ready);
  }

  /** Rewrites the API-backed volumes whose content changed; true when something did. */
  async refresh(): Promise<boolean> {
    const objects = await this.fetchObjects();
    const tokens = await this.tokens();
    let changed = false;
    for (const v of this.pod.spec?.volumes ?? []) {
      if (!(v.secret || v.configMap || v.downwardAPI || v.projected)) continue;
      changed = this.writeApiVolume(v, objects, tokens) || changed;
    }
    return changed;
  }

  private writeApiVolume(v: V1Volume, objects: VolumeObjects, tokens: Map<string, string>): boolean {
    const fsGroup = this.pod.spec?.securityContext?.fsGroup;
    const mode = volumeDefaultMode(v);
    const ctx = { pod: this.pod, placement: this.ctx.placement, allocatable: this.ctx.allocatable };
    let kind: string;
    let payload;
    if (v.secret) {
      kind = 'secret';
      payload = secretPayload(v.secret.secretName ?? '', v.secret.items, objects, mode, !!v.secret.optional);
    } else if (v.configMap) {
      kind = 'configmap';
      payload = configMapPayload(v.configMap.name ?? '', v.configMap.items, objects, mode, !!v.configMap.optional);
    } else if (v.downwardAPI) {
      kind = 'downward-api';
      payload = downwardAPIPayload(v.downwardAPI.items, ctx, mode);
    } else {
      kind = 'projected';
      payload = projectedPayload(v, {
        ...ctx,
        objects,
        tokenFor: (s) => {
          const t = tokens.get(JSON.stringify(s));
          if (t === undefined) throw new MountError('no token');
          return t;
        },
      });
    }
    const dir = this.dirOf(kind, v.name);
    const fresh = !existsSync(dir);
    mkdirSync(dir, { recursive: true });
    if (fresh) {
      // Like the tmpfs the kubelet mounts for these volumes.
      if (fsGroup !== undefined) chownSync(dir, -1, fsGroup);
      chmodSync(dir, fsGroup !== undefined ? 0o3777 : 0o1777);
    }
    return writeAtomically(dir, withFsGroup(payload, fsGroup), { dirGid: fsGroup });
  }

  private async setUpOne(v: V1Volume, objects: VolumeObjects, tokens: Map<string, string>): Promise<VolumeOnHost> {
    const fsGroup = this.pod.spec?.securityContext?.fsGroup;
    if (v.secret || v.configMap || v.downwardAPI || v.projected) {
      this.writeApiVolume(v, objects, tokens);
      const kind = v.secret ? 'secret' : v.configMap ? 'configmap' : v.downwardAPI ? 'downward-api' : 'projected';
      return { path: this.dirOf(kind, v.name), readOnly: true };
    }
    if (v.emptyDir) {
      const dir = this.dirOf('empty-dir', v.name);
      if (!existsSync(dir)) {
        mkdirSync(dir, { recursive: true });
        chmodSync(dir, 0o777);
        if (fsGroup !== undefined) applyFsGroup(dir, fsGroup);
      }
      return { path: dir, readOnly: false };
    }
    if (v.hostPath) return { path: hostPathVolume(v.hostPath.path, v.hostPath.type ?? ''), readOnly: false };
    const claim = v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? `${this.pod.metadata!.name}-${v.name}` : undefined);
    if (claim) {
      const { path, ownership } = await this.claimFolder(claim);
      if (ownership && fsGroup !== undefined && (this.pod.spec?.securityContext?.fsGroupChangePolicy !== 'OnRootMismatch' || statSync(path).gid !== fsGroup)) applyFsGroup(path, fsGroup);
      return { path, readOnly: !!v.persistentVolumeClaim?.readOnly };
    }
    throw new MountError('this volume type is not supported by the process kubelet (secret, configMap, downwardAPI, projected, emptyDir, hostPath and persistentVolumeClaim are)');
  }

  /**
   * A Bound claim's folder: the hostPath or local path of its PersistentVolume, otherwise one
   * folder per claim (by UID, so a new claim of the same name starts empty) under the kubelet's.
   * `ownership`: whether fsGroup applies (not to hostPath volumes, as on a real node).
   */
  private async claimFolder(name: string): Promise<{ path: string; ownership: boolean }> {
    const ns = this.pod.metadata!.namespace!;
    let pvc: V1PersistentVolumeClaim;
    try {
      pvc = await this.ctx.api.get<V1PersistentVolumeClaim>(`/api/v1/namespaces/${ns}/persistentvolumeclaims/${encode(name)}`);
    } catch (err) {
      throw new MountError(isNotFound(err) ? `persistentvolumeclaim "${name}" not found` : (err as Error).message);
    }
    if (pvc.status?.phase !== 'Bound') throw new MountError(`persistentvolumeclaim "${name}" is not bound (phase ${pvc.status?.phase ?? 'Pending'})`);
    if (pvc.spec?.volumeName) {
      try {
        const pv = await this.ctx.api.get<V1PersistentVolume>(`/api/v1/persistentvolumes/${encode(pvc.spec.volumeName)}`);
        const path = pv.spec?.hostPath?.path ?? pv.spec?.local?.path;
        if (path) {
          mkdirSync(path, { recursive: true });
          return { path, ownership: !pv.spec?.hostPath };
        }
      } catch {
        /* no hostPath/local volume we can read: a folder of our own */
      }
    }
    const dir = join(this.ctx.claimsDir, `${ns}_${name}_${pvc.metadata?.uid}`);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o777);
    }
    return { path: dir, ownership: true };
  }
}

/** hostPath with its type check (or creation), as the kubelet's hostPath plugin does. */
export function hostPathVolume(path: string, type: string): string {
  const kind = () => {
    try {
      const st = statSync(path);
      return st.isDirectory() ? 'Directory' : st.isFile() ? 'File' : st.isSocket() ? 'Socket' : st.isCharacterDevice() ? 'CharDevice' : st.isBlockDevice() ? 'BlockDevice' : 'other';
    } catch {
      return 'missing';
    }
  };
  switch (type) {
    case '':
      return path;
    case 'DirectoryOrCreate':
      if (kind() === 'missing') mkdirSync(path, { recursive: true, mode: 0o755 });
      if (kind() !== 'Directory') throw new MountError(`hostPath type check failed: ${path} is not a directory`);
      return path;
    case 'FileOrCreate':
      if (kind() === 'missing') {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, '', { mode: 0o644 });
      }
      if (kind() !== 'File') throw new MountError(`hostPath type check failed: ${path} is not a file`);
      return path;
    default:
      if (kind() !== type) throw new MountError(`hostPath type check failed: ${path} is not a ${type}`);
      return path;
  }
}
