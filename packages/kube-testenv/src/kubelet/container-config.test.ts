import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { containerRunConfig, containerUser, type RunConfigInput, translatePath } from './container-config.ts';
import { orderMounts } from './container-launch.ts';
import { ContainerConfigError } from './env-resolve.ts';
import type { ImageConfig } from './image-map.ts';

const image: ImageConfig = {
  image: 'orrery/runtime',
  imageID: 'process-kubelet:///repo/apps/runtime/bin/x.mjs',
  runs: 'node',
  entrypoint: ['node', 'apps/runtime/bin/x.mjs'],
  cmd: ['--port', '8080'],
  env: [
    ['PATH', '/usr/bin:/bin'],
    ['NODE_ENV', 'production'],
  ],
  workingDir: '/repo',
  user: { uid: 1000, gid: 1000 },
  users: [{ name: 'node', uid: 1000, gid: 1000, home: '/home/node' }],
  executables: { node: '/usr/bin/node' },
  privateDirs: [{ path: '/home/node', mode: 0o755 }],
  pathAliases: [{ imagePath: '/app', hostPath: '/repo' }],
  stopSignal: 'SIGTERM',
};
const pod = (spec: Partial<V1Pod['spec']> = {}): V1Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [], ...spec } });
const input = (c: Partial<V1Container>, p: V1Pod = pod()): RunConfigInput => ({
  pod: p,
  container: { name: 'c', ...c },
  image,
  containerEnv: new Map([['PORT', '9000']]),
  hostname: 'p',
  volumes: new Map([
    ['data', { path: '/k/pods/x/volumes/empty-dir/data', readOnly: false }],
    ['secret', { path: '/k/pods/x/volumes/secret/secret', readOnly: true }],
  ]),
  podFiles: { hosts: '/k/hosts', hostname: '/k/hostname', resolvConf: '/k/resolv' },
  privateRoot: '/k/c.fs',
  hostHome: () => undefined,
  kindOf: (p) => (p.endsWith('.yaml') ? 'file' : 'dir'),
});

describe('containerRunConfig', () => {
  it("runs the image's command from its folder, with node mapped and the image env under the spec's", () => {
    const cfg = containerRunConfig(input({ args: ['--port', '$(PORT)'] }));
    expect(cfg.argv).toEqual(['/usr/bin/node', 'apps/runtime/bin/x.mjs', '--port', '9000']);
    expect(cfg.workingDir).toBe('/repo');
    expect(Object.fromEntries(cfg.env)).toEqual({ PATH: '/usr/bin:/bin', NODE_ENV: 'production', HOSTNAME: 'p', PORT: '9000', HOME: '/home/node' });
    expect([cfg.uid, cfg.gid, cfg.groups]).toEqual([1000, 1000, []]);
  });

  it('mounts volumes (secrets read-only, subPath files as files), the pod files and private image folders', () => {
    const cfg = containerRunConfig(
      input({
        volumeMounts: [
          { name: 'data', mountPath: '/tmp' },
          { name: 'secret', mountPath: '/etc/orrery/key' },
          { name: 'data', mountPath: '/etc/app.yaml', subPath: 'conf/app.yaml', readOnly: true },
          { name: 'data', mountPath: '/app/apps/console/.next/cache', subPathExpr: 'cache-$(PORT)' },
        ],
      }),
    );
    expect(cfg.mounts).toEqual([
      { source: '/k/c.fs/home/node', target: '/home/node', readOnly: false, file: false },
      { source: '/k/pods/x/volumes/empty-dir/data', target: '/tmp', readOnly: false, file: false },
      { source: '/k/pods/x/volumes/secret/secret', target: '/etc/orrery/key', readOnly: true, file: false },
      { source: '/k/pods/x/volumes/empty-dir/data/conf/app.yaml', target: '/etc/app.yaml', readOnly: true, file: true },
      { source: '/k/pods/x/volumes/empty-dir/data/cache-9000', target: '/repo/apps/console/.next/cache', readOnly: false, file: false },
      { source: '/k/hosts', target: '/etc/hosts', readOnly: false, file: true },
      { source: '/k/hostname', target: '/etc/hostname', readOnly: false, file: true },
      { source: '/k/resolv', target: '/etc/resolv.conf', readOnly: false, file: true },
    ]);
  });

  it('keeps the image folder visible under a volume mounted over its parent (a checkout in /tmp, an emptyDir at /tmp)', () => {
    const inTmp: ImageConfig = { ...image, workingDir: '/tmp/x', pathAliases: [{ imagePath: '/app', hostPath: '/tmp/x' }] };
    const cfg = containerRunConfig({
      ...input({ volumeMounts: [{ name: 'data', mountPath: '/tmp' }, { name: 'data', mountPath: '/app/cache', subPath: 'c' }] }),
      image: inTmp,
    });
    const order = orderMounts(cfg.mounts).map((m) => `${m.source} -> ${m.target}`);
    expect(order.indexOf('/tmp/x -> /tmp/x')).toBeGreaterThan(order.indexOf('/k/pods/x/volumes/empty-dir/data -> /tmp'));
    expect(order.indexOf('/tmp/x -> /tmp/x')).toBeLessThan(order.indexOf('/k/pods/x/volumes/empty-dir/data/c -> /tmp/x/cache'));
    // Nothing over a parent: nothing to bind back.
    const plain = containerRunConfig(input({ volumeMounts: [{ name: 'data', mountPath: '/tmp' }] }));
    expect(plain.mounts.some((m) => m.source === '/repo')).toBe(false);
  });

  it('runs a command that names a host program as given, and the spec workingDir', () => {
    const cfg = containerRunConfig(input({ command: ['/bin/sh', '-c', 'echo $(PORT)'], workingDir: '/app/apps' }));
    expect(cfg.argv).toEqual(['/bin/sh', '-c', 'echo 9000']);
    expect(cfg.workingDir).toBe('/repo/apps');
  });

  it('refuses mounts it cannot make and volumes the pod lacks', () => {
    expect(() => containerRunConfig(input({ volumeMounts: [{ name: 'nope', mountPath: '/x' }] }))).toThrow(ContainerConfigError);
    expect(() => containerRunConfig(input({ volumeMounts: [{ name: 'data', mountPath: '/run' }] }))).toThrow(/cannot mount/);
    expect(() => containerRunConfig(input({ volumeMounts: [{ name: 'data', mountPath: '/x', subPath: '../up' }] }))).toThrow(/relative path/);
  });
});

describe('containerUser', () => {
  const c = (sc: V1Container['securityContext'] = {}): V1Container => ({ name: 'c', securityContext: sc });
  it('lets the container securityContext win over the pod one, over the image USER', () => {
    expect(containerUser(pod({ securityContext: { runAsUser: 2000, runAsGroup: 3000, fsGroup: 4000, supplementalGroups: [5000] } }), c({ runAsUser: 2001 }), image)).toEqual({ uid: 2001, gid: 3000, groups: [4000, 5000] });
    expect(containerUser(pod(), c(), image)).toEqual({ uid: 1000, gid: 1000, groups: [] });
    expect(containerUser(pod(), c({ runAsUser: 0 }), image)).toEqual({ uid: 0, gid: 0, groups: [] });
  });

  it('refuses runAsNonRoot for a container that would run as root, like a kubelet', () => {
    const rootImage = { ...image, user: undefined };
    expect(() => containerUser(pod({ securityContext: { runAsNonRoot: true } }), c(), rootImage)).toThrow(/container has runAsNonRoot and image will run as root \(pod: "p_ns\(u\)", container: c\)/);
    expect(() => containerUser(pod(), c({ runAsNonRoot: true, runAsUser: 0 }), image)).toThrow(/runAsUser breaks non-root policy/);
    expect(containerUser(pod({ securityContext: { runAsNonRoot: true } }), c(), image).uid).toBe(1000);
  });
});

describe('translatePath', () => {
  it('maps the image WORKDIR to the repository root', () => {
    expect(translatePath('/app', image)).toBe('/repo');
    expect(translatePath('/app/x', image)).toBe('/repo/x');
    expect(translatePath('/application', image)).toBe('/application');
  });
});
