import type { V1Service } from '@kubernetes/client-node';

/** `my-svc` → `MY_SVC` (the kubelet's makeEnvVariableName). */
export const serviceEnvName = (name: string): string => name.toUpperCase().replaceAll('-', '_');

const hasClusterIP = (s: V1Service) => !!s.spec?.clusterIP && s.spec.clusterIP !== 'None';

/**
 * Which Services a pod's environment describes, as the kubelet picks them: the master
 * `kubernetes` Service of the `default` namespace always, and every Service of the pod's own
 * namespace when `enableServiceLinks` is not false (a same-named one there wins). Only Services
 * with a ClusterIP count.
 */
export function servicesForPodEnv(services: Iterable<V1Service>, podNamespace: string, enableServiceLinks: boolean): V1Service[] {
  const chosen = new Map<string, V1Service>();
  for (const s of services) {
    if (!hasClusterIP(s)) continue;
    const name = s.metadata?.name ?? '';
    const ns = s.metadata?.namespace ?? '';
    if (ns === 'default' && name === 'kubernetes') {
      if (!chosen.has(name)) chosen.set(name, s);
    } else if (ns === podNamespace && enableServiceLinks) {
      chosen.set(name, s);
    }
  }
  return [...chosen.values()].sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : a.metadata!.name! > b.metadata!.name! ? 1 : 0));
}

/**
 * The variables Kubernetes gives a container for each Service (pkg/kubelet/envvars): `<NAME>_SERVICE_HOST`,
 * `<NAME>_SERVICE_PORT` (first port) and `_SERVICE_PORT_<PORTNAME>` per named port, plus the Docker link
 * variables `<NAME>_PORT`, `<NAME>_PORT_<port>_<PROTO>` and its `_PROTO`, `_PORT`, `_ADDR`.
 */
export function serviceEnvVars(services: readonly V1Service[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const s of services) {
    if (!hasClusterIP(s)) continue;
    const ip = s.spec!.clusterIP!;
    const ports = s.spec?.ports ?? [];
    const prefix = serviceEnvName(s.metadata!.name!);
    out.push([`${prefix}_SERVICE_HOST`, ip]);
    if (ports.length === 0) continue;
    out.push([`${prefix}_SERVICE_PORT`, String(ports[0]!.port)]);
    for (const p of ports) if (p.name) out.push([`${prefix}_SERVICE_PORT_${serviceEnvName(p.name)}`, String(p.port)]);
    const hostPort = ip.includes(':') ? `[${ip}]` : ip;
    ports.forEach((p, i) => {
      const proto = (p.protocol ?? 'TCP').toLowerCase();
      const url = `${proto}://${hostPort}:${p.port}`;
      if (i === 0) out.push([`${prefix}_PORT`, url]);
      const pp = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
      out.push([pp, url], [`${pp}_PROTO`, proto], [`${pp}_PORT`, String(p.port)], [`${pp}_ADDR`, ip]);
    });
  }
  return out;
}
