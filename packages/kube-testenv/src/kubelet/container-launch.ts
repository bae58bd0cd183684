/**
 * The launcher script that turns a process into a container: started by the kubelet as
 * `nsenter --net=<pod netns> unshare --mount --uts --propagation private -- /bin/sh <launcher> <argv…>`,
 * it mounts the container's volumes (and /etc/hosts, /etc/hostname, /etc/resolv.conf) at their
 * paths in its own mount namespace, sets the hostname, drops to the container's user and execs
 * the command, so the process keeps the pid the kubelet spawned.
 */

/** One bind mount into the container's view of the filesystem. */
export interface MountSpec {
  source: string;
  target: string;
  readOnly: boolean;
  /** A single file (hosts, subPath files) rather than a folder. */
  file: boolean;
}

export interface LaunchPlan {
  hostname: string;
  mounts: MountSpec[];
  uid: number;
  gid: number;
  groups: number[];
  noNewPrivs: boolean;
  workingDir: string;
  /** The container's env, to undo what /bin/sh itself adds to it (PWD, a reset IFS). */
  env: ReadonlyMap<string, string>;
  /**
   * A file the kubelet creates before the start and the launcher removes right before it execs
   * the command: if it is still there when the process ends, the container never started (StartError).
   */
  startMarker: string;
}

/**
 * A folder that exists on the host and that no pod mounts over: every mount source is bound here
 * first (inside the container's namespace, on a private tmpfs) before any mount can hide it (a
 * pod mounting an emptyDir at /tmp would hide the kubelet's folder under /tmp).
 */
export const STAGING_DIR = '/run/okube-stage';

/** Targets that would hide the staging folder. */
export const FORBIDDEN_TARGETS = ['/', '/run', '/var/run'];

export const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** Parents before children: sorted by the number of path components, stable (as containerd orders mounts). */
export function orderMounts(mounts: MountSpec[]): MountSpec[] {
  const depth = (p: string) => p.split('/').filter(Boolean).length;
  return mounts
    .map((m, i) => ({ m, i }))
    .sort((a, b) => depth(a.m.target) - depth(b.m.target) || a.i - b.i)
    .map((x) => x.m);
}

const BIN = { mount: '/usr/bin/mount', umount: '/usr/bin/umount', mkdir: '/usr/bin/mkdir', setpriv: '/usr/bin/setpriv', env: '/usr/bin/env', dirname: '/usr/bin/dirname', rm: '/usr/bin/rm' };

const markerDir = (p: string) => p.slice(0, p.lastIndexOf('/')) || '/';
const markerName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

export function launcherScript(plan: LaunchPlan, title: string): string {
  const L: string[] = [
    '#!/bin/sh',
    `# ${title}: written by the process kubelet (packages/kube-testenv/src/kubelet/container-launch.ts).`,
    '# Runs in the pod\'s network namespace and a mount and UTS namespace of its own.',
    'set -e',
    // The start marker's folder, held open: a volume mounted over one of its parents (an emptyDir
    // at /tmp, with the kubelet's folder under /tmp) must not hide the marker from its removal.
    `exec 9<${quote(markerDir(plan.startMarker))}`,
    `S=${STAGING_DIR}`,
    `${BIN.mount} -t tmpfs -o mode=0700 okube-stage "$S"`,
    // Other pods' network namespaces are mounted under /run/netns; a copy here would keep them alive.
    `${BIN.umount} -R -l /run/netns 2>/dev/null || :`,
  ];
  const mounts = orderMounts(plan.mounts);
  mounts.forEach((m, i) => {
    L.push(m.file ? `: > "$S/${i}"` : `${BIN.mkdir} "$S/${i}"`);
    L.push(`${BIN.mount} --bind ${quote(m.source)} "$S/${i}"`);
  });
  mounts.forEach((m, i) => {
    const t = quote(m.target);
    L.push(m.file ? `[ -e ${t} ] || { ${BIN.mkdir} -p "$(${BIN.dirname} ${t})"; : > ${t}; }` : `${BIN.mkdir} -p ${t}`);
    L.push(`${BIN.mount} --bind "$S/${i}" ${t}`);
    if (m.readOnly) L.push(`${BIN.mount} -o remount,bind,ro ${t}`);
  });
  L.push(`${BIN.umount} -R "$S"`);
  L.push(`echo ${quote(plan.hostname)} > /proc/sys/kernel/hostname`);
  L.push(`${BIN.mkdir} -p ${quote(plan.workingDir)}`);
  // The command must exist (looked up on the container's PATH), or the container fails to start.
  L.push(`command -v -- "$1" >/dev/null || { echo "exec: \\"$1\\": executable file not found in \\$PATH" >&2; exit 127; }`);
  L.push(`${BIN.rm} -f /proc/self/fd/9/${quote(markerName(plan.startMarker))} && exec 9<&-`);
  const groups = plan.groups.length ? `--groups=${plan.groups.join(',')}` : '--clear-groups';
  const fixups = [plan.env.has('PWD') ? `PWD=${plan.env.get('PWD')}` : '-u PWD', ...(plan.env.has('IFS') ? [`IFS=${plan.env.get('IFS')}`] : [])].map((a) =>
    a.startsWith('-u ') ? a : quote(a),
  );
  L.push(
    // --pdeathsig: the container dies with the kubelet, even a SIGKILLed one, so no test run leaves processes behind.
    `exec ${BIN.setpriv} --reuid=${plan.uid} --regid=${plan.gid} ${groups}${plan.noNewPrivs ? ' --no-new-privs' : ''} --pdeathsig SIGKILL -- ${BIN.env} -C ${quote(plan.workingDir)} ${fixups.join(' ')} "$@"`,
  );
  return `${L.join('\n')}\n`;
}
