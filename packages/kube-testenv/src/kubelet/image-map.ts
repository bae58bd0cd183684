import { parseDockerfile } from './dockerfile.ts';

/**
 * The one table that says what the process kubelet runs for an image, since it has no container
 * runtime: Orrery's images run the project's own code from this checkout (as their Dockerfiles
 * say), etcd images the etcd built for the test cluster, postgres and redis images Debian's
 * binaries behind small stand-ins for the official images' entrypoints, the nats image Debian's
 * nats-server. Anything else is not run.
 */

/** A user the image's /etc/passwd knows (for HOME). */
export interface ImageUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** A folder of the image's filesystem a container writes to: made fresh and private per container start. */
export interface PrivateDir {
  path: string;
  mode: number;
}

export interface ImageConfig {
  /** The image reference as the pod names it. */
  image: string;
  /** `process-kubelet://<what runs>`, reported as the container's imageID. */
  imageID: string;
  /** What the reference mapped to, for the "Mapped image" event. */
  runs: string;
  entrypoint: string[];
  cmd: string[];
  /** The image's ENV, in order (PATH among them). */
  env: Array<[string, string]>;
  /** Host path of the image's WORKDIR. */
  workingDir: string;
  /** The image's USER (undefined: root). */
  user?: { uid: number; gid?: number };
  users: ImageUser[];
  /** command[0] as the image knows it (a name on its PATH or an absolute path) → host executable. */
  executables: Record<string, string>;
  privateDirs: PrivateDir[];
  /** Image paths that are a host folder here: Orrery's WORKDIR /app is the repository root. */
  pathAliases: Array<{ imagePath: string; hostPath: string }>;
  /** STOPSIGNAL. */
  stopSignal: NodeJS.Signals;
}

/** Where the host keeps what images map to. */
export interface HostTools {
  repoRoot: string;
  /** `node` for Orrery's images (process.execPath). */
  node: string;
  /** The etcd built for the test cluster. */
  etcd?: string;
  /** Debian's /usr/lib/postgresql/<version>/bin. */
  postgresBin?: string;
  /** Debian's python3, for images whose Dockerfile starts python3 (orrery/runtime-python). */
  python?: string;
  redisServer?: string;
  /** Debian's /usr/sbin/nats-server (the official `nats` image). */
  natsServer?: string;
  /** This package's stand-ins for image scripts (kubelet/image-bin). */
  imageBin: string;
  /** Reads a file (a Dockerfile); throws when missing. */
  readFile: (path: string) => string;
  /** Which apps/<app>/Dockerfile exist. */
  orreryApps: () => string[];
  /** Whether a file exists (the compiled entrypoint an Orrery image runs). */
  fileExists: (path: string) => boolean;
}

export interface ImageRef {
  registry?: string;
  path: string;
  tag?: string;
  digest?: string;
}

/** `registry.example.com:5000/orrery/runtime:0.1.0@sha256:…` → its parts (Docker's rules). */
export function parseImageRef(ref: string): ImageRef {
  let rest = ref.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const parts = rest.split('/');
  let registry: string | undefined;
  if (parts.length > 1 && /[.:]|^localhost$/.test(parts[0]!)) registry = parts.shift();
  return { registry, path: parts.join('/'), tag, digest };
}

const NODE_IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const NODE_IMAGE_USERS: ImageUser[] = [{ name: 'node', uid: 1000, gid: 1000, home: '/home/node' }];
/** The official python image's PATH (its python3 is /usr/local/bin/python3) and locale. */
const PYTHON_IMAGE_PATH = `/usr/local/bin:${NODE_IMAGE_PATH}`;
const PYTHON_EXECUTABLES = ['python3', 'python', '/usr/local/bin/python3', '/usr/local/bin/python', '/usr/bin/python3'];
const ETCD_IMAGES = ['quay.io/coreos/etcd', 'registry.k8s.io/etcd', 'gcr.io/etcd-development/etcd'];

/** What the error message lists: every image family the table maps. */
export function mappedImagesSummary(tools: HostTools): string {
  const apps = tools.orreryApps().map((a) => `orrery/${a}`);
  const builder = apps.includes('orrery/builder') ? [] : ['orrery/builder'];
  return [...apps, ...ETCD_IMAGES, 'postgres', 'redis', 'nats', ...builder].join(', ');
}

function parseUser(user: string | undefined, known: ImageUser[]): ImageConfig['user'] {
  if (!user) return undefined;
  const [u, g] = user.split(':', 2) as [string, string | undefined];
  const byName = known.find((k) => k.name === u);
  const uid = /^\d+$/.test(u) ? Number(u) : byName?.uid;
  if (uid === undefined) return undefined;
  const gid = g !== undefined && /^\d+$/.test(g) ? Number(g) : (byName?.gid ?? known.find((k) => k.uid === uid)?.gid);
  return { uid, gid };
}

function orreryImage(app: string, image: string, tools: HostTools): ImageConfig | { notMapped: string } {
  const df = parseDockerfile(tools.readFile(`${tools.repoRoot}/apps/${app}/Dockerfile`));
  const workdir = df.workingDir ?? '/';
  const aliases = workdir === '/' ? [] : [{ imagePath: workdir, hostPath: tools.repoRoot }];
  const script = [...df.entrypoint, ...df.cmd].find((a) => /\.(m?js|ts|py)$/.test(a));
  // A Python image (apps/runtime-python) runs its script with Debian's python3, from this checkout.
  if (/(^|\/)python3?$/.test(df.entrypoint[0] ?? '')) {
    if (!tools.python) return { notMapped: `image "${image}" runs python3 (apps/${app}/Dockerfile), and Debian's python3 (/usr/bin/python3) is not installed` };
    if (script && !tools.fileExists(`${tools.repoRoot}/${script}`)) return { notMapped: `image "${image}" runs ${script} (apps/${app}/Dockerfile), which is missing from this checkout` };
    return {
      image,
      imageID: `process-kubelet://${script ? `${tools.repoRoot}/${script}` : tools.python}`,
      runs: `${tools.python} from ${tools.repoRoot} (apps/${app}/Dockerfile)`,
      entrypoint: df.entrypoint,
      cmd: df.cmd,
      env: [['PATH', PYTHON_IMAGE_PATH], ['LANG', 'C.UTF-8'], ...df.env.filter(([k]) => k !== 'PATH' && k !== 'LANG')],
      workingDir: aliases.length ? tools.repoRoot : workdir,
      user: parseUser(df.user, []),
      users: [],
      executables: Object.fromEntries(PYTHON_EXECUTABLES.map((name) => [name, tools.python!])),
      privateDirs: [],
      pathAliases: aliases,
      stopSignal: 'SIGTERM',
    };
  }
  // The images run what build:apps compiles into apps/<app>/dist (a bundle; the runtime's body and
  // its code cache), built like the image's build stage builds it.
  const built = [...df.entrypoint, ...df.cmd].filter((a) => /(^|\/)dist\//.test(a));
  const unbuilt = [...(script ? [script] : []), ...built].find((f) => !tools.fileExists(`${tools.repoRoot}/${f}`));
  if (unbuilt) {
    return { notMapped: `image "${image}" runs ${unbuilt} (apps/${app}/Dockerfile), which is not built: run npm run build:apps` };
  }
  return {
    image,
    imageID: `process-kubelet://${script ? `${tools.repoRoot}/${script}` : tools.node}`,
    runs: `${tools.node} from ${tools.repoRoot} (apps/${app}/Dockerfile)`,
    entrypoint: df.entrypoint,
    cmd: df.cmd,
    env: [['PATH', NODE_IMAGE_PATH], ...df.env.filter(([k]) => k !== 'PATH')],
    workingDir: aliases.length ? tools.repoRoot : workdir,
    user: parseUser(df.user, NODE_IMAGE_USERS),
    users: NODE_IMAGE_USERS,
    executables: { node: tools.node, '/usr/local/bin/node': tools.node, '/usr/bin/node': tools.node },
    privateDirs: [{ path: '/home/node', mode: 0o755 }],
    pathAliases: aliases,
    stopSignal: 'SIGTERM',
  };
}

/** `orrery/builder`: packages/builder's orrery-build, the package builder of source.package (its image has node, npm and pip). */
const BUILDER_IMAGE = 'builder';
const BUILDER_BIN = 'packages/builder/bin/orrery-build.mjs';

function builderImage(image: string, tools: HostTools): ImageConfig | { notMapped: string } {
  if (!tools.fileExists(`${tools.repoRoot}/${BUILDER_BIN}`)) return { notMapped: `image "${image}" runs ${BUILDER_BIN}, which is missing from this checkout` };
  return {
    image,
    imageID: `process-kubelet://${tools.repoRoot}/${BUILDER_BIN}`,
    runs: `${tools.node} ${BUILDER_BIN} from ${tools.repoRoot}`,
    entrypoint: ['node', BUILDER_BIN],
    cmd: [],
    // npm (and python3 for pip) are the host's, found on the node image's PATH.
    env: [['PATH', NODE_IMAGE_PATH]],
    workingDir: tools.repoRoot,
    user: { uid: 1000, gid: 1000 },
    users: NODE_IMAGE_USERS,
    executables: { node: tools.node, '/usr/local/bin/node': tools.node, '/usr/bin/node': tools.node },
    privateDirs: [{ path: '/home/node', mode: 0o755 }],
    pathAliases: [{ imagePath: '/app', hostPath: tools.repoRoot }],
    stopSignal: 'SIGTERM',
  };
}

/** The image's config, or why it is not mapped (the container then waits with ErrImageNotMapped). */
export function mapImage(image: string, tools: HostTools): ImageConfig | { notMapped: string } {
  const ref = parseImageRef(image);
  const full = `${ref.registry ?? 'docker.io'}/${ref.path}`;
  const segments = ref.path.split('/');
  const last = segments.at(-1)!;
  const notMapped = (why: string) => ({ notMapped: `image "${image}" ${why}; the process kubelet runs only ${mappedImagesSummary(tools)}` });

  if (segments.length >= 2 && segments.at(-2) === 'orrery') {
    if (last === BUILDER_IMAGE && !tools.orreryApps().includes(last)) return builderImage(image, tools);
    if (!tools.orreryApps().includes(last)) return notMapped(`names no app with a Dockerfile (apps/${last}/Dockerfile)`);
    return orreryImage(last, image, tools);
  }
  if (ETCD_IMAGES.includes(full) || ETCD_IMAGES.includes(ref.path)) {
    if (!tools.etcd) return notMapped('needs the etcd binary, which the kubelet was not given (--bin-dir)');
    return {
      image,
      imageID: `process-kubelet://${tools.etcd}`,
      runs: tools.etcd,
      entrypoint: [],
      cmd: ['/usr/local/bin/etcd'],
      env: [['PATH', NODE_IMAGE_PATH]],
      workingDir: '/var/lib/etcd',
      users: [],
      executables: { etcd: tools.etcd, '/usr/local/bin/etcd': tools.etcd },
      privateDirs: [
        { path: '/var/etcd', mode: 0o755 },
        { path: '/var/lib/etcd', mode: 0o755 },
      ],
      pathAliases: [],
      stopSignal: 'SIGTERM',
    };
  }
  // `postgres[:tag]` and any `<somewhere>/postgres`; `redis[:tag]` from Docker Hub only.
  if (last === 'postgres') {
    if (!tools.postgresBin) return notMapped('needs Debian\'s postgres (/usr/lib/postgresql/<version>/bin), which is not installed');
    const bin = `${tools.imageBin}/postgres`;
    return {
      image,
      imageID: `process-kubelet://${tools.postgresBin}/postgres`,
      runs: `${tools.postgresBin}/postgres through ${bin}/docker-entrypoint.sh`,
      entrypoint: ['docker-entrypoint.sh'],
      cmd: ['postgres'],
      env: [
        ['PATH', `${bin}:${NODE_IMAGE_PATH}:${tools.postgresBin}`],
        ['PGDATA', '/var/lib/postgresql/data'],
        // The official image sets en_US.utf8; C.UTF-8 is what every Debian has, and gives UTF8 databases too.
        ['LANG', 'C.UTF-8'],
      ],
      workingDir: '/',
      users: [{ name: 'postgres', uid: 999, gid: 999, home: '/var/lib/postgresql' }],
      executables: {},
      privateDirs: [
        { path: '/var/lib/postgresql', mode: 0o755 },
        { path: '/var/run/postgresql', mode: 0o3777 },
      ],
      // The entrypoint shim lives in the checkout: an emptyDir at /tmp must not hide it when the
      // checkout is under /tmp (bound back like Orrery's /app; see container-config.ts).
      pathAliases: [{ imagePath: bin, hostPath: bin }],
      stopSignal: 'SIGINT',
    };
  }
  const dockerHub = !ref.registry || ref.registry === 'docker.io' || ref.registry === 'index.docker.io';
  if (last === 'redis' && dockerHub && (segments.length === 1 || (segments.length === 2 && segments[0] === 'library'))) {
    if (!tools.redisServer) return notMapped('needs Debian\'s redis-server, which is not installed');
    const bin = `${tools.imageBin}/redis`;
    return {
      image,
      imageID: `process-kubelet://${tools.redisServer}`,
      runs: `${tools.redisServer} through ${bin}/docker-entrypoint.sh`,
      entrypoint: ['docker-entrypoint.sh'],
      cmd: ['redis-server'],
      env: [['PATH', `${bin}:${NODE_IMAGE_PATH}`]],
      workingDir: '/data',
      users: [{ name: 'redis', uid: 999, gid: 999, home: '/home/redis' }],
      executables: {},
      privateDirs: [{ path: '/data', mode: 0o777 }],
      pathAliases: [{ imagePath: bin, hostPath: bin }],
      stopSignal: 'SIGTERM',
    };
  }
  // The official image (scratch) has ENTRYPOINT /nats-server and CMD --config nats-server.conf; pods
  // that want JetStream pass their own args (`-js -sd /data`), which replace that CMD. Without args
  // Debian's defaults apply: port 4222 on every interface, no monitoring port, no cluster.
  if (last === 'nats' && dockerHub && (segments.length === 1 || (segments.length === 2 && segments[0] === 'library'))) {
    if (!tools.natsServer) return notMapped('needs Debian\'s nats-server, which is not installed (scripts/services.sh installs it)');
    return {
      image,
      imageID: `process-kubelet://${tools.natsServer}`,
      runs: tools.natsServer,
      entrypoint: ['/nats-server'],
      cmd: [],
      env: [['PATH', NODE_IMAGE_PATH]],
      workingDir: '/',
      users: [],
      executables: { '/nats-server': tools.natsServer, 'nats-server': tools.natsServer },
      privateDirs: [{ path: '/tmp/nats', mode: 0o755 }],
      pathAliases: [],
      stopSignal: 'SIGTERM',
    };
  }
  return notMapped('is not mapped to a local program');
}
