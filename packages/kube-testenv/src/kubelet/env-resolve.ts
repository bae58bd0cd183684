import type { V1ConfigMap, V1Container, V1Pod, V1Secret, V1Service } from '@kubernetes/client-node';
import { fieldRefValue, type NodeAllocatable, type PodPlacement, resourceFieldRefValue } from './downward-api.ts';
import { serviceEnvVars, servicesForPodEnv } from './service-env.ts';
import { expandVars, lookupIn } from './var-expansion.ts';

/**
 * A container cannot be created from its spec: it waits with `reason` (the kubelet's
 * CreateContainerConfigError; ErrImageNotMapped for an image the process kubelet cannot run).
 */
export class ContainerConfigError extends Error {
  constructor(
    message: string,
    readonly reason = 'CreateContainerConfigError',
  ) {
    super(message);
  }
}

/** ConfigMaps and Secrets the container's env names, fetched beforehand (undefined: not found). */
export interface EnvObjects {
  configMaps: ReadonlyMap<string, V1ConfigMap | undefined>;
  secrets: ReadonlyMap<string, V1Secret | undefined>;
}

/** The ConfigMaps and Secrets `env` and `envFrom` refer to, to fetch before resolving. */
export function envReferences(c: V1Container): { configMaps: string[]; secrets: string[] } {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  for (const f of c.envFrom ?? []) {
    if (f.configMapRef?.name) configMaps.add(f.configMapRef.name);
    if (f.secretRef?.name) secrets.add(f.secretRef.name);
  }
  for (const e of c.env ?? []) {
    if (e.valueFrom?.configMapKeyRef?.name) configMaps.add(e.valueFrom.configMapKeyRef.name);
    if (e.valueFrom?.secretKeyRef?.name) secrets.add(e.valueFrom.secretKeyRef.name);
  }
  return { configMaps: [...configMaps], secrets: [...secrets] };
}

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

export interface EnvContext {
  pod: V1Pod;
  container: V1Container;
  placement: PodPlacement;
  services: Iterable<V1Service>;
  objects: EnvObjects;
  allocatable: NodeAllocatable;
}

/**
 * The environment the kubelet makes for a container (pkg/kubelet makeEnvironmentVariables):
 * `envFrom` first (later sources win, keys get the prefix), then `env` in order (a value has its
 * `$(VAR)` references expanded against what came before and the service variables; `valueFrom`
 * is resolved), then the service variables the spec did not set. Nothing else: the image's
 * environment is laid under this by the caller, and the kubelet's own environment never enters.
 */
export function resolveContainerEnv(ctx: EnvContext): Map<string, string> {
  const { pod, container, objects } = ctx;
  const ns = pod.metadata?.namespace ?? '';
  const serviceEnv = new Map(serviceEnvVars(servicesForPodEnv(ctx.services, ns, pod.spec?.enableServiceLinks !== false)));
  const env = new Map<string, string>();
  for (const f of container.envFrom ?? []) {
    const prefix = f.prefix ?? '';
    if (f.configMapRef) {
      const cm = objects.configMaps.get(f.configMapRef.name ?? '');
      if (!cm) {
        if (f.configMapRef.optional) continue;
        throw new ContainerConfigError(`configmap "${f.configMapRef.name}" not found`);
      }
      for (const [k, v] of Object.entries(cm.data ?? {})) env.set(prefix + k, v);
    } else if (f.secretRef) {
      const s = objects.secrets.get(f.secretRef.name ?? '');
      if (!s) {
        if (f.secretRef.optional) continue;
        throw new ContainerConfigError(`secret "${f.secretRef.name}" not found`);
      }
      for (const [k, v] of Object.entries(s.data ?? {})) env.set(prefix + k, decode(v));
    }
  }
  const lookup = lookupIn(env, serviceEnv);
  for (const e of container.env ?? []) {
    let value = e.value ?? '';
    if (value !== '') {
      value = expandVars(value, lookup);
    } else if (e.valueFrom) {
      const from = e.valueFrom;
      if (from.fieldRef) {
        value = fieldRefValue(from.fieldRef, pod, ctx.placement);
      } else if (from.resourceFieldRef) {
        value = resourceFieldRefValue(from.resourceFieldRef, container, ctx.allocatable);
      } else if (from.configMapKeyRef) {
        const ref = from.configMapKeyRef;
        const cm = objects.configMaps.get(ref.name ?? '');
        if (!cm) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`configmap "${ref.name}" not found`);
        }
        const v = cm.data?.[ref.key];
        if (v === undefined) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`couldn't find key ${ref.key} in ConfigMap ${ns}/${ref.name}`);
        }
        value = v;
      } else if (from.secretKeyRef) {
        const ref = from.secretKeyRef;
        const s = objects.secrets.get(ref.name ?? '');
        if (!s) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`secret "${ref.name}" not found`);
        }
        const v = s.data?.[ref.key];
        if (v === undefined) {
          if (ref.optional) continue;
          throw new ContainerConfigError(`couldn't find key ${ref.key} in Secret ${ns}/${ref.name}`);
        }
        value = decode(v);
      }
    }
    env.set(e.name, value);
  }
  for (const [k, v] of serviceEnv) if (!env.has(k)) env.set(k, v);
  return env;
}

/**
 * Command and arguments as Kubernetes combines them with the image's: `command` replaces the
 * ENTRYPOINT (and drops the image's CMD), `args` replace the CMD; both get `$(VAR)` expansion
 * against the container's environment.
 */
export function containerArgv(container: V1Container, image: { entrypoint: readonly string[]; cmd: readonly string[] }, env: ReadonlyMap<string, string>): string[] {
  const lookup = lookupIn(env);
  const expand = (list: readonly string[]) => list.map((a) => expandVars(a, lookup));
  const command = container.command?.length ? expand(container.command) : [...image.entrypoint];
  const args = container.args?.length ? expand(container.args) : container.command?.length ? [] : [...image.cmd];
  return [...command, ...args];
}
