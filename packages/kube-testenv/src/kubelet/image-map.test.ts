import { describe, expect, it } from 'vitest';
import { type HostTools, type ImageConfig, mapImage, parseImageRef } from './image-map.ts';

const DOCKERFILE = `FROM node AS runtime
ENV NODE_ENV=production
WORKDIR /app
USER 1000:1000
ENTRYPOINT ["node", "apps/runtime/dist/orrery-runtime.mjs"]
CMD ["--host", "0.0.0.0", "--port", "8080"]
`;
const tools: HostTools = {
  repoRoot: '/repo',
  node: '/usr/bin/node',
  etcd: '/k/bin/etcd',
  postgresBin: '/usr/lib/postgresql/15/bin',
  redisServer: '/usr/bin/redis-server',
  natsServer: '/usr/sbin/nats-server',
  imageBin: '/repo/packages/kube-testenv/src/kubelet/image-bin',
  readFile: (p) => {
    if (p === '/repo/apps/runtime/Dockerfile') return DOCKERFILE;
    if (p === '/repo/apps/router/Dockerfile') return DOCKERFILE.replaceAll('runtime', 'router');
    throw new Error(`ENOENT ${p}`);
  },
  orreryApps: () => ['router', 'runtime'],
  fileExists: (p) => p === '/repo/apps/runtime/dist/orrery-runtime.mjs',
};
const mapped = (image: string) => {
  const m = mapImage(image, tools);
  if ('notMapped' in m) throw new Error(m.notMapped);
  return m;
};

describe('parseImageRef', () => {
  it.each([
    ['orrery/runtime', { path: 'orrery/runtime' }],
    ['orrery/runtime:0.1.0', { path: 'orrery/runtime', tag: '0.1.0' }],
    ['registry.example.com/orrery/runtime:0.1.0', { registry: 'registry.example.com', path: 'orrery/runtime', tag: '0.1.0' }],
    ['localhost:5000/orrery/router', { registry: 'localhost:5000', path: 'orrery/router' }],
    ['postgres@sha256:abc', { path: 'postgres', digest: 'sha256:abc' }],
    ['quay.io/coreos/etcd:v3.6.0', { registry: 'quay.io', path: 'coreos/etcd', tag: 'v3.6.0' }],
  ])('%s', (ref, want) => {
    expect(parseImageRef(ref)).toEqual({ registry: undefined, tag: undefined, digest: undefined, ...want });
  });
});

describe('mapImage', () => {
  it("runs Orrery's images as their Dockerfile says, from the repository root", () => {
    for (const image of ['orrery/runtime', 'orrery/runtime:latest', 'registry.example.com/orrery/runtime:0.1.0']) {
      const m = mapped(image);
      expect(m).toMatchObject<Partial<ImageConfig>>({
        entrypoint: ['node', 'apps/runtime/dist/orrery-runtime.mjs'],
        cmd: ['--host', '0.0.0.0', '--port', '8080'],
        workingDir: '/repo',
        user: { uid: 1000, gid: 1000 },
        imageID: 'process-kubelet:///repo/apps/runtime/dist/orrery-runtime.mjs',
        pathAliases: [{ imagePath: '/app', hostPath: '/repo' }],
      });
      expect(m.executables.node).toBe('/usr/bin/node');
      expect(m.env).toContainEqual(['NODE_ENV', 'production']);
      expect(m.env.find(([k]) => k === 'PATH')).toBeTruthy();
    }
  });

  it('does not run an Orrery image whose entrypoint names a built file that is missing (the runtime\'s code-cached body)', () => {
    const cached = `FROM node AS runtime\nWORKDIR /app\nENTRYPOINT ["node", "apps/runtime/boot/code-cached-boot.mjs", "apps/runtime/dist/orrery-runtime.body.cjs", "apps/runtime/dist/orrery-runtime.body.v8cache"]\n`;
    const present = new Set(['/repo/apps/runtime/boot/code-cached-boot.mjs', '/repo/apps/runtime/dist/orrery-runtime.body.cjs']);
    const t: HostTools = { ...tools, readFile: () => cached, fileExists: (p) => present.has(p) };
    expect(mapImage('orrery/runtime:0.1.0', t)).toEqual({ notMapped: 'image "orrery/runtime:0.1.0" runs apps/runtime/dist/orrery-runtime.body.v8cache (apps/runtime/Dockerfile), which is not built: run npm run build:apps' });
    present.add('/repo/apps/runtime/dist/orrery-runtime.body.v8cache');
    expect(mapImage('orrery/runtime:0.1.0', t)).toMatchObject({ entrypoint: ['node', 'apps/runtime/boot/code-cached-boot.mjs', 'apps/runtime/dist/orrery-runtime.body.cjs', 'apps/runtime/dist/orrery-runtime.body.v8cache'] });
  });

  it('does not run an Orrery image whose compiled entrypoint is not built, and says how to build it', () => {
    // apps/router/dist/orrery-router.mjs does not exist in this table.
    const m = mapImage('orrery/router:0.1.0', tools);
    expect(m).toEqual({ notMapped: 'image "orrery/router:0.1.0" runs apps/router/dist/orrery-router.mjs (apps/router/Dockerfile), which is not built: run npm run build:apps' });
  });

  it('maps etcd images to the built etcd, also for the absolute path in command', () => {
    for (const image of ['quay.io/coreos/etcd:v3.6.0', 'registry.k8s.io/etcd:3.5.21-0', 'gcr.io/etcd-development/etcd:v3.7.3']) {
      const m = mapped(image);
      expect(m.executables['/usr/local/bin/etcd']).toBe('/k/bin/etcd');
      expect(m.executables.etcd).toBe('/k/bin/etcd');
      expect(m.cmd).toEqual(['/usr/local/bin/etcd']);
    }
  });

  it("maps postgres images to Debian's postgres behind the entrypoint stand-in", () => {
    for (const image of ['postgres', 'postgres:16', 'docker.io/library/postgres:17-alpine', 'registry.example.com/mirror/postgres:16']) {
      const m = mapped(image);
      expect(m.entrypoint).toEqual(['docker-entrypoint.sh']);
      expect(m.cmd).toEqual(['postgres']);
      expect(m.stopSignal).toBe('SIGINT');
      expect(m.env).toContainEqual(['PGDATA', '/var/lib/postgresql/data']);
      expect(m.env.find(([k]) => k === 'PATH')![1]).toMatch(/^\/repo\/.*image-bin\/postgres:.*:\/usr\/lib\/postgresql\/15\/bin$/);
    }
  });

  it("maps redis from Docker Hub to Debian's redis-server", () => {
    for (const image of ['redis', 'redis:7', 'docker.io/library/redis:7.2']) expect(mapped(image).cmd).toEqual(['redis-server']);
  });

  it("maps nats from Docker Hub to Debian's nats-server; the pod's args replace the image's config file", () => {
    for (const image of ['nats', 'nats:2.10', 'docker.io/library/nats:2.9-alpine']) {
      const m = mapped(image);
      expect(m.entrypoint).toEqual(['/nats-server']);
      expect(m.cmd).toEqual([]);
      expect(m.executables['/nats-server']).toBe('/usr/sbin/nats-server');
    }
    expect(mapImage('example.com/team/nats', tools)).toHaveProperty('notMapped');
    expect((mapImage('nats:2.10', { ...tools, natsServer: undefined }) as { notMapped: string }).notMapped).toMatch(/Debian's nats-server/);
  });

  it('keeps the entrypoint stand-ins of postgres and redis as host folders, so a volume over a parent (an emptyDir at /tmp, the checkout in /tmp) cannot hide them', () => {
    for (const [image, dir] of [['postgres:17', 'postgres'], ['redis:7', 'redis']] as const) {
      const shims = mapped(image).env.find(([k]) => k === 'PATH')![1].split(':')[0]!;
      expect(shims).toMatch(new RegExp(`image-bin/${dir}$`));
      expect(mapped(image).pathAliases).toContainEqual({ imagePath: shims, hostPath: shims });
    }
  });

  it('runs the Python runtime image with Debian\'s python3 and the script of this checkout, as its Dockerfile says', () => {
    const PYTHON_DOCKERFILE = `FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1
WORKDIR /app
USER 65532:65532
ENTRYPOINT ["python3", "-I", "-B", "apps/runtime-python/orrery-runtime-python.py"]
CMD ["--host", "0.0.0.0", "--port", "8080"]
`;
    const withPython: HostTools = {
      ...tools,
      python: '/usr/bin/python3',
      readFile: (p) => (p === '/repo/apps/runtime-python/Dockerfile' ? PYTHON_DOCKERFILE : tools.readFile(p)),
      orreryApps: () => ['router', 'runtime', 'runtime-python'],
      fileExists: (p) => p === '/repo/apps/runtime-python/orrery-runtime-python.py' || tools.fileExists(p),
    };
    const m = mapImage('orrery/runtime-python:latest', withPython);
    if ('notMapped' in m) throw new Error(m.notMapped);
    expect(m).toMatchObject<Partial<ImageConfig>>({
      entrypoint: ['python3', '-I', '-B', 'apps/runtime-python/orrery-runtime-python.py'],
      workingDir: '/repo',
      user: { uid: 65532 },
      imageID: 'process-kubelet:///repo/apps/runtime-python/orrery-runtime-python.py',
      pathAliases: [{ imagePath: '/app', hostPath: '/repo' }],
    });
    expect(m.executables.python3).toBe('/usr/bin/python3');
    expect(m.executables['/usr/local/bin/python3']).toBe('/usr/bin/python3');
    expect(m.env).toContainEqual(['PYTHONDONTWRITEBYTECODE', '1']);
    expect(m.env.find(([k]) => k === 'PATH')![1]).toMatch(/^\/usr\/local\/bin:/);
    expect((mapImage('orrery/runtime-python', { ...withPython, python: undefined }) as { notMapped: string }).notMapped).toMatch(/Debian's python3/);
    expect((mapImage('orrery/runtime-python', { ...withPython, fileExists: () => false }) as { notMapped: string }).notMapped).toMatch(/missing from this checkout/);
  });

  it('refuses everything else, naming what it can run', () => {
    for (const image of ['nginx', 'busybox:1.36', 'orrery/cli', 'example.com/team/redis', 'ghcr.io/x/etcd']) {
      const m = mapImage(image, tools);
      expect(m).toHaveProperty('notMapped');
      expect((m as { notMapped: string }).notMapped).toContain(`image "${image}"`);
      expect((m as { notMapped: string }).notMapped).toContain('orrery/router, orrery/runtime, quay.io/coreos/etcd');
    }
  });

  it('says what is missing when a mapped program is not installed', () => {
    const m = mapImage('postgres:16', { ...tools, postgresBin: undefined });
    expect((m as { notMapped: string }).notMapped).toMatch(/Debian's postgres/);
  });
});
