import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { FORBIDDEN_TARGETS, type MountSpec } from './container-launch.ts';
import { ContainerConfigError, containerArgv } from './env-resolve.ts';
import type { ImageConfig } from './image-map.ts';
import { expandVars, lookupIn } from './var-expansion.ts';

/** A volume as set up on the host: its folder (or file, for a hostPath file). */
export interface VolumeOnHost {
  path: string;
  /** secret, configMap, downwardAPI and projected volumes are always mounted read-only. */
  readOnly: boolean;
}

/** Everything needed to start one container as a process. */
export interface ContainerRunConfig {
  argv: string[];
  env: Map<string, string>;
  workingDir: string;
  uid: number;
  gid: number;
  groups: number[];
  noNewPrivs: boolean;
  mounts: MountSpec[];
  stopSignal: NodeJS.Signals;
  /** The image's command names → host executables (exec probes and hooks use them too). */
  executables: Record<string, string>;
}

export interface RunConfigInput {
  pod: V1Pod;
  container: V1Container;
  image: ImageConfig;
  /** From resolveContainerEnv. */
  containerEnv: ReadonlyMap<string, string>;
  hostname: string;
  volumes: ReadonlyMap<string, VolumeOnHost>;
  /** The pod's /etc/hosts, /etc/hostname, /etc/resolv.conf on the host. */
  podFiles: { hosts: string; hostname: string; resolvConf: string };
  /** Folder holding this container's private image folders (ImageConfig.privateDirs). */
  privateRoot: string;
  /** Home folders of host users, for HOME when the image does not know the uid. */
  hostHome: (uid: number) => string | undefined;
  /** A /etc/passwd for the container when its uid is unknown on the host (written by the caller). */
  passwdFile?: string;
  /** 'file', 'dir' or 'missing' for a host path (subPath targets). */
  kindOf: (path: string) => 'file' | 'dir' | 'missing';
}

const podRef = (pod: V1Pod) => `${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})`;

/** An image path under a path alias (WORKDIR /app) → the host folder it stands for. */
export function translatePath(p: string, image: Pick<ImageConfig, 'pathAliases'>): string {
  for (const a of image.pathAliases) {
    if (p === a.imagePath) return a.hostPath;
    if (p.startsWith(`${a.imagePath}/`)) return a.hostPath + p.slice(a.imagePath.length);
  }
  return p;
}

/** uid, gid and supplementary groups as a container runtime derives them from the securityContexts and the image. */
export function containerUser(pod: V1Pod, c: V1Container, image: ImageConfig): { uid: number; gid: number; groups: number[] } {
  const psc = pod.spec?.securityContext ?? {};
  const csc = c.securityContext ?? {};
  const uid = csc.runAsUser ?? psc.runAsUser ?? image.user?.uid ?? 0;
  const nonRoot = csc.runAsNonRoot ?? psc.runAsNonRoot;
  if (nonRoot && uid === 0) {
    const explicit = csc.runAsUser ?? psc.runAsUser;
    throw new ContainerConfigError(
      explicit === 0
        ? `container's runAsUser breaks non-root policy (pod: "${podRef(pod)}", container: ${c.name})`
        : `container has runAsNonRoot and image will run as root (pod: "${podRef(pod)}", container: ${c.name})`,
    );
  }
  const imageGid = image.user && image.user.uid === uid ? image.user.gid : undefined;
  const gid = csc.runAsGroup ?? psc.runAsGroup ?? imageGid ?? image.users.find((u) => u.uid === uid)?.gid ?? 0;
  const groups = [...new Set([...(psc.fsGroup !== undefined ? [psc.fsGroup] : []), ...(psc.supplementalGroups ?? [])])];
  return { uid, gid, groups };
}

export function containerRunConfig(i: RunConfigInput): ContainerRunConfig {
  const { pod, container: c, image } = i;
  const user = containerUser(pod, c, image);
  const argv = containerArgv(c, image, i.containerEnv);
  if (argv.length === 0) throw new ContainerConfigError(`no command specified for container ${c.name} and image ${image.image} has none`);
  argv[0] = image.executables[argv[0]!] ?? translatePath(argv[0]!, image);

  const env = new Map<string, string>(image.env);
  env.set('HOSTNAME', i.hostname);
  for (const [k, v] of i.containerEnv) env.set(k, v);
  if (!env.has('HOME')) env.set('HOME', user.uid === 0 ? '/root' : (image.users.find((u) => u.uid === user.uid)?.home ?? i.hostHome(user.uid) ?? '/'));

  const mounts: MountSpec[] = image.privateDirs.map((d) => ({ source: `${i.privateRoot}${d.path}`, target: d.path, readOnly: false, file: false }));
  const lookup = lookupIn(i.containerEnv);
  for (const vm of c.volumeMounts ?? []) {
    const vol = i.volumes.get(vm.name);
    if (!vol) throw new ContainerConfigError(`cannot find volume "${vm.name}" to mount into container "${c.name}"`);
    const target = translatePath(vm.mountPath, image);
    if (!target.startsWith('/') || FORBIDDEN_TARGETS.includes(target.replace(/\/+$/, '') || '/')) {
      throw new ContainerConfigError(`the process kubelet cannot mount volume "${vm.name}" at "${vm.mountPath}"`);
    }
    const sub = vm.subPathExpr ? expandVars(vm.subPathExpr, lookup) : vm.subPath;
    if (sub && (sub.startsWith('/') || sub.split('/').includes('..'))) throw new ContainerConfigError(`subPath "${sub}" must be a relative path inside the volume`);
    const source = sub ? `${vol.path}/${sub}` : vol.path;
    mounts.push({ source, target, readOnly: vol.readOnly || !!vm.readOnly, file: i.kindOf(source) === 'file' });
  }
  const targets = new Set(mounts.map((m) => m.target));
  if (!pod.spec?.hostNetwork) {
    for (const [target, source] of [
      ['/etc/hosts', i.podFiles.hosts],
      ['/etc/hostname', i.podFiles.hostname],
      ['/etc/resolv.conf', i.podFiles.resolvConf],
    ] as const) {
      if (!targets.has(target)) mounts.push({ source, target, readOnly: false, file: true });
    }
  }
  if (i.passwdFile && !targets.has('/etc/passwd')) mounts.push({ source: i.passwdFile, target: '/etc/passwd', readOnly: true, file: true });
  // The image's content is a host folder here (Orrery's /app is the checkout): a volume mounted
  // over one of its parents (an emptyDir at /tmp, with the checkout in /tmp/x) must not hide it,
  // as no volume hides a real image's files. It is bound back onto itself after the volumes.
  for (const a of image.pathAliases) {
    const hidden = mounts.some((m) => !m.file && m.target !== a.hostPath && a.hostPath.startsWith(`${m.target.replace(/\/+$/, '')}/`));
    if (hidden && !targets.has(a.hostPath)) mounts.push({ source: a.hostPath, target: a.hostPath, readOnly: false, file: false });
  }

  return {
    argv,
    env,
    workingDir: c.workingDir ? translatePath(c.workingDir, image) : image.workingDir,
    ...user,
    noNewPrivs: c.securityContext?.allowPrivilegeEscalation === false,
    mounts,
    stopSignal: image.stopSignal,
    executables: image.executables,
  };
}
