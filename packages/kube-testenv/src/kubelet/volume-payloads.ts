import type { V1ConfigMap, V1DownwardAPIVolumeFile, V1KeyToPath, V1Pod, V1Secret, V1ServiceAccountTokenProjection, V1Volume } from '@kubernetes/client-node';
import type { FileProjection, Payload } from './atomic-writer.ts';
import { fieldRefValue, type NodeAllocatable, type PodPlacement, resourceFieldRefValue } from './downward-api.ts';

/**
 * The files of secret, configMap, downwardAPI and projected volumes, computed as the kubelet's
 * volume plugins do (their MakePayload functions) from objects fetched beforehand.
 */

/** A volume cannot be set up (the kubelet's FailedMount). */
export class MountError extends Error {}

const DEFAULT_MODE = 0o644;

/** Objects the pod's volumes name (undefined: not found). */
export interface VolumeObjects {
  secrets: ReadonlyMap<string, V1Secret | undefined>;
  configMaps: ReadonlyMap<string, V1ConfigMap | undefined>;
}

function keyedPayload(what: string, name: string, data: Record<string, Buffer>, items: V1KeyToPath[] | undefined, defaultMode: number, optional: boolean): Payload {
  const out: Payload = new Map();
  if (!items?.length) {
    for (const [k, v] of Object.entries(data)) out.set(k, { data: v, mode: defaultMode });
    return out;
  }
  for (const it of items) {
    const v = data[it.key];
    if (v === undefined) {
      if (optional) continue;
      throw new MountError(`configuration of ${what} "${name}" references non-existent ${what} key: ${it.key}`);
    }
    out.set(it.path, { data: v, mode: it.mode ?? defaultMode });
  }
  return out;
}

const secretData = (s: V1Secret) => Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
const configMapData = (c: V1ConfigMap) => ({
  ...Object.fromEntries(Object.entries(c.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'utf8')])),
  ...Object.fromEntries(Object.entries(c.binaryData ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
});

export function secretPayload(name: string, items: V1KeyToPath[] | undefined, objects: VolumeObjects, defaultMode: number, optional: boolean): Payload {
  const s = objects.secrets.get(name);
  if (!s) {
    if (optional) return new Map();
    throw new MountError(`secret "${name}" not found`);
  }
  return keyedPayload('secret', name, secretData(s), items, defaultMode, optional);
}

export function configMapPayload(name: string, items: V1KeyToPath[] | undefined, objects: VolumeObjects, defaultMode: number, optional: boolean): Payload {
  const c = objects.configMaps.get(name);
  if (!c) {
    if (optional) return new Map();
    throw new MountError(`configmap "${name}" not found`);
  }
  return keyedPayload('configmap', name, configMapData(c), items, defaultMode, optional);
}

export interface DownwardContext {
  pod: V1Pod;
  placement: PodPlacement;
  allocatable: NodeAllocatable;
}

export function downwardAPIPayload(items: V1DownwardAPIVolumeFile[] | undefined, ctx: DownwardContext, defaultMode: number): Payload {
  const out: Payload = new Map();
  for (const it of items ?? []) {
    let value: string;
    if (it.fieldRef) {
      value = fieldRefValue(it.fieldRef, ctx.pod, ctx.placement, true);
    } else if (it.resourceFieldRef) {
      const name = it.resourceFieldRef.containerName;
      const c = [...(ctx.pod.spec?.containers ?? []), ...(ctx.pod.spec?.initContainers ?? [])].find((x) => x.name === name);
      if (!c) throw new MountError(`downwardAPI item "${it.path}" names no container "${name}"`);
      value = resourceFieldRefValue(it.resourceFieldRef, c, ctx.allocatable);
    } else continue;
    out.set(it.path, { data: Buffer.from(value, 'utf8'), mode: it.mode ?? defaultMode });
  }
  return out;
}

/** The effective runAsUser every container shares, if they all name one (the kubelet's FsUserFrom). */
export function sharedRunAsUser(pod: V1Pod): number | undefined {
  let uid: number | undefined;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const u = c.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser;
    if (u === undefined || (uid !== undefined && uid !== u)) return undefined;
    uid = u;
  }
  return uid;
}

export interface ProjectedContext extends DownwardContext {
  objects: VolumeObjects;
  /** The token for a serviceAccountToken source (fetched through the TokenRequest API). */
  tokenFor: (source: V1ServiceAccountTokenProjection) => string;
}

export function projectedPayload(volume: V1Volume, ctx: ProjectedContext): Payload {
  const p = volume.projected!;
  const defaultMode = p.defaultMode ?? DEFAULT_MODE;
  const out: Payload = new Map();
  const add = (m: Payload) => m.forEach((v, k) => out.set(k, v));
  const fsUser = sharedRunAsUser(ctx.pod);
  const fsGroup = ctx.pod.spec?.securityContext?.fsGroup;
  for (const s of p.sources ?? []) {
    if (s.secret) add(secretPayload(s.secret.name ?? '', s.secret.items, ctx.objects, defaultMode, !!s.secret.optional));
    else if (s.configMap) add(configMapPayload(s.configMap.name ?? '', s.configMap.items, ctx.objects, defaultMode, !!s.configMap.optional));
    else if (s.downwardAPI) add(downwardAPIPayload(s.downwardAPI.items, ctx, defaultMode));
    else if (s.serviceAccountToken) {
      // The kubelet makes the token readable by the pod's one user only, when it knows that user.
      const f: FileProjection = { data: Buffer.from(ctx.tokenFor(s.serviceAccountToken), 'utf8'), mode: fsUser !== undefined || fsGroup !== undefined ? 0o600 : defaultMode };
      if (fsUser !== undefined) f.uid = fsUser;
      out.set(s.serviceAccountToken.path, f);
    } else {
      throw new MountError(`projected volume "${volume.name}": only secret, configMap, downwardAPI and serviceAccountToken sources are supported by the process kubelet`);
    }
  }
  return out;
}

/** The kubelet's ownership pass for fsGroup on read-only volumes: group fsGroup, group-readable. */
export function withFsGroup(payload: Payload, fsGroup: number | undefined): Payload {
  if (fsGroup === undefined) return payload;
  return new Map([...payload].map(([k, f]) => [k, { ...f, gid: fsGroup, mode: f.mode | 0o440 }]));
}

export const volumeDefaultMode = (v: V1Volume): number => v.secret?.defaultMode ?? v.configMap?.defaultMode ?? v.downwardAPI?.defaultMode ?? v.projected?.defaultMode ?? DEFAULT_MODE;
