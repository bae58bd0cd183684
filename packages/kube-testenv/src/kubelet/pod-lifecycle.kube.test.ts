/**
 * The process kubelet's pod lifecycle against the real control plane: a Deployment of
 * orrery/runtime reaching Ready through its readiness probe, init containers, crash back-off,
 * graceful termination, and images it will not run.
 */
import { AppsV1Api, CoreV1Api, type CoreV1Event, type V1Container, type V1Pod } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { describe, expect, it } from 'vitest';
import { containerLog, containerPid, podDir, restartApiServer } from '../cluster-access.ts';
import { namespaceForFile } from '../namespace-for-file.ts';

const { kc, ns } = namespaceForFile('kubelet-life');
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);

const RUNTIME = 'registry.example.com/orrery/runtime:0.1.0';
/** A container running a node script through the runtime image's node. */
const nodeScript = (name: string, script: string, extra: Partial<V1Container> = {}): V1Container => ({ name, image: RUNTIME, command: ['node', '-e', script], ...extra });

const readPod = (name: string) => core.readNamespacedPod({ name, namespace: ns() });
const gone = async (name: string) => {
  try {
    await readPod(name);
    return false;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return true;
    throw err;
  }
};
async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  let last = '';
  return waitFor(
    what,
    timeoutMs,
    async () => {
      try {
        const v = await probe();
        return v === false ? undefined : v;
      } catch (err) {
        last = (err as Error).message;
        return undefined;
      }
    },
    () => last,
    250,
  );
}
const events = async (pod: string): Promise<CoreV1Event[]> => (await core.listNamespacedEvent({ namespace: ns(), fieldSelector: `involvedObject.name=${pod}` })).items;
const status = (p: V1Pod, c: string) => p.status?.containerStatuses?.find((s) => s.name === c);

describe('the process kubelet runs pods', () => {
  it('runs a Deployment of orrery/runtime (its Dockerfile ENTRYPOINT) to Ready through the readiness probe', async () => {
    const started = Date.now();
    await apps.createNamespacedDeployment({
      namespace: ns(),
      body: {
        metadata: { name: 'runtime' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'runtime' } },
          template: {
            metadata: { labels: { app: 'runtime' } },
            spec: {
              containers: [
                {
                  name: 'runtime',
                  image: RUNTIME,
                  args: ['--mode', 'pool', '--host', '0.0.0.0', '--port', '8080'],
                  ports: [{ name: 'http', containerPort: 8080 }],
                  readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 1 },
                },
              ],
            },
          },
        },
      },
    });
    const d = await until('2 ready replicas', 60_000, async () => {
      const dep = await apps.readNamespacedDeployment({ name: 'runtime', namespace: ns() });
      return dep.status?.readyReplicas === 2 && dep;
    });
    expect(d.status?.availableReplicas).toBe(2);
    const pods = (await core.listNamespacedPod({ namespace: ns(), labelSelector: 'app=runtime' })).items;
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      const s = status(p, 'runtime')!;
      expect(p.status?.phase).toBe('Running');
      expect(p.status?.podIP).toMatch(/^10\.244\.1\.\d+$/);
      expect(p.status?.hostIP).toBe('10.245.0.1');
      expect(p.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(p.status?.conditions?.find((c) => c.type === 'PodReadyToStartContainers')?.status).toBe('True');
      expect(s).toMatchObject({ ready: true, started: true, restartCount: 0, imageID: expect.stringMatching(/^process-kubelet:\/\/.*apps\/runtime\/boot\/code-cached-boot\.mjs$/) });
      expect(s.containerID).toBe(`process://${containerPid(ns(), p.metadata!.name!, 'runtime')}`);
      // The process is the image's ENTRYPOINT with the pod's args, as the image's user.
      const pid = containerPid(ns(), p.metadata!.name!, 'runtime')!;
      const { readFileSync } = await import('node:fs');
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      // The boot with the runtime's body and the code cache build:apps made.
      expect(argv.slice(1)).toEqual(['apps/runtime/boot/code-cached-boot.mjs', 'apps/runtime/dist/orrery-runtime.body.cjs', 'apps/runtime/dist/orrery-runtime.body.v8cache', '--mode', 'pool', '--host', '0.0.0.0', '--port', '8080']);
      expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^Uid:\s+1000\s/m);
      expect(containerLog(ns(), p.metadata!.name!, 'runtime')).toContain('worker ready');
    }
    console.log(`[process-kubelet] Deployment of 2 runtime pods ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it('runs init containers in order before the containers', async () => {
    await core.createNamespacedPod({
      namespace: ns(),
      body: {
        metadata: { name: 'with-init' },
        spec: {
          volumes: [{ name: 'work', emptyDir: {} }],
          initContainers: [
            nodeScript('first', "require('fs').writeFileSync('/work/order', 'first\\n')", { volumeMounts: [{ name: 'work', mountPath: '/work' }] }),
            nodeScript('second', "require('fs').appendFileSync('/work/order', 'second\\n')", { volumeMounts: [{ name: 'work', mountPath: '/work' }] }),
          ],
          containers: [nodeScript('main', "console.log('ORDER ' + JSON.stringify(require('fs').readFileSync('/work/order', 'utf8'))); setInterval(() => {}, 1000)", { volumeMounts: [{ name: 'work', mountPath: '/work' }] })],
        },
      },
    });
    const p = await until('with-init running', 30_000, async () => {
      const pod = await readPod('with-init');
      return pod.status?.phase === 'Running' && status(pod, 'main')?.ready && pod;
    });
    expect(p.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.exitCode, s.state?.terminated?.reason, s.ready])).toEqual([
      ['first', 0, 'Completed', true],
      ['second', 0, 'Completed', true],
    ]);
    expect(p.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    await until('main logs the order', 10_000, async () => containerLog(ns(), 'with-init', 'main').includes('ORDER "first\\nsecond\\n"'));
  });

  it('restarts a crashing container with the kubelet back-off and counts restarts', async () => {
    await core.createNamespacedPod({
      namespace: ns(),
      body: { metadata: { name: 'crasher' }, spec: { containers: [nodeScript('crash', "console.log('run at ' + Date.now()); process.exit(3)")] } },
    });
    // First crash: restarted at once; second: 10 s back-off (CrashLoopBackOff), then again.
    const backingOff = await until('CrashLoopBackOff', 30_000, async () => {
      const pod = await readPod('crasher');
      const s = status(pod, 'crash');
      return s?.state?.waiting?.reason === 'CrashLoopBackOff' && pod;
    });
    const s = status(backingOff, 'crash')!;
    expect(s.restartCount).toBe(1);
    expect(s.state!.waiting!.message).toMatch(/^back-off 10s restarting failed container=crash pod=crasher_/);
    expect(s.lastState?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(backingOff.status?.phase).toBe('Running');
    expect(backingOff.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    const restarted = await until('second restart', 30_000, async () => {
      const pod = await readPod('crasher');
      return (status(pod, 'crash')?.restartCount ?? 0) >= 2 && pod;
    });
    expect(status(restarted, 'crash')!.restartCount).toBe(2);
    // restartCount counts a start; the process prints a moment later.
    const runs = await until('three runs logged', 10_000, async () => {
      const r = [...containerLog(ns(), 'crasher', 'crash').matchAll(/run at (\d+)/g)].map((m) => Number(m[1]));
      return r.length >= 3 && r;
    });
    expect(runs[1]! - runs[0]!).toBeLessThan(5_000);
    expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(9_000);
    expect((await events('crasher')).map((e) => e.reason)).toContain('BackOff');
  });

  it('reports a command that does not exist as StartError (exit 128) and backs off', async () => {
    await core.createNamespacedPod({ namespace: ns(), body: { metadata: { name: 'no-such' }, spec: { containers: [{ name: 'c', image: RUNTIME, command: ['no-such-program', '--flag'] }] } } });
    const p = await until('StartError', 30_000, async () => {
      const pod = await readPod('no-such');
      const s = status(pod, 'c');
      const t = s?.state?.terminated ?? s?.lastState?.terminated;
      return t?.reason === 'StartError' && t;
    });
    expect(p.exitCode).toBe(128);
    expect(p.message).toContain('exec: "no-such-program": executable file not found in $PATH');
  });

  it('restarts a container whose liveness probe fails (exec, inside the container)', async () => {
    const script = "const fs = require('fs'); fs.writeFileSync('/work/healthy', 'ok'); console.log('start'); setTimeout(() => fs.rmSync('/work/healthy'), 1500); setInterval(() => {}, 1000)";
    await core.createNamespacedPod({
      namespace: ns(),
      body: {
        metadata: { name: 'unhealthy' },
        spec: {
          terminationGracePeriodSeconds: 2,
          volumes: [{ name: 'work', emptyDir: {} }],
          containers: [nodeScript('app', script, { volumeMounts: [{ name: 'work', mountPath: '/work' }], livenessProbe: { exec: { command: ['cat', '/work/healthy'] }, periodSeconds: 1, failureThreshold: 2 } })],
        },
      },
    });
    const p = await until('restarted after failing liveness', 40_000, async () => {
      const pod = await readPod('unhealthy');
      return (status(pod, 'app')?.restartCount ?? 0) >= 1 && pod;
    });
    expect(status(p, 'app')!.lastState?.terminated?.message).toBe('Container app failed liveness probe');
    const evs = await events('unhealthy');
    expect(evs.some((e) => e.reason === 'Unhealthy' && /^Liveness probe failed: cat: \/work\/healthy: No such file or directory/.test(e.message ?? ''))).toBe(true);
    expect(evs.some((e) => e.reason === 'Killing' && e.message === 'Container app failed liveness probe, will be restarted')).toBe(true);
  });

  it('refuses runAsNonRoot for an image that runs as root, like a kubelet (CreateContainerConfigError)', async () => {
    await core.createNamespacedPod({
      namespace: ns(),
      body: { metadata: { name: 'rootful' }, spec: { securityContext: { runAsNonRoot: true }, containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.7.3' }] } },
    });
    const s = await until('CreateContainerConfigError', 20_000, async () => {
      const st = status(await readPod('rootful'), 'etcd');
      return st?.state?.waiting?.reason === 'CreateContainerConfigError' && st;
    });
    expect(s.state!.waiting!.message).toMatch(/^container has runAsNonRoot and image will run as root \(pod: "rootful_/);
    expect(containerPid(ns(), 'rootful', 'etcd')).toBeUndefined();
  });

  it('leaves a pod with an image it cannot map Waiting with ErrImageNotMapped', async () => {
    await core.createNamespacedPod({ namespace: ns(), body: { metadata: { name: 'nginx' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } });
    const p = await until('ErrImageNotMapped', 20_000, async () => {
      const pod = await readPod('nginx');
      return status(pod, 'web')?.state?.waiting?.reason === 'ErrImageNotMapped' && pod;
    });
    expect(p.status?.phase).toBe('Pending');
    expect(status(p, 'web')!.state!.waiting!.message).toMatch(/image "nginx:1.27" is not mapped.*orrery\/runtime.*quay\.io\/coreos\/etcd.*postgres.*redis/);
    expect(containerPid(ns(), 'nginx', 'web')).toBeUndefined();
    expect(containerLog(ns(), 'nginx', 'web')).toBe('');
  });

  it('stops a deleted pod gracefully: SIGTERM to the process, its grace respected, then the pod object removed', async () => {
    const script = "process.on('SIGTERM', () => { console.log('got SIGTERM at ' + Date.now()); setTimeout(() => { console.log('drained'); process.exit(0); }, 1500); }); console.log('up'); setInterval(() => {}, 1000)";
    await core.createNamespacedPod({ namespace: ns(), body: { metadata: { name: 'graceful' }, spec: { terminationGracePeriodSeconds: 10, containers: [nodeScript('app', script)] } } });
    await until('graceful up', 30_000, async () => containerLog(ns(), 'graceful', 'app').includes('up'));
    const pid = containerPid(ns(), 'graceful', 'app')!;
    const dir = podDir(ns(), 'graceful')!;
    const deletedAt = Date.now();
    await core.deleteNamespacedPod({ name: 'graceful', namespace: ns() });
    const terminating = await readPod('graceful');
    expect(terminating.metadata?.deletionTimestamp).toBeTruthy();
    await until('graceful gone', 20_000, () => gone('graceful'));
    const tookMs = Date.now() - deletedAt;
    const log = containerLog(ns(), 'graceful', 'app');
    const sigtermAt = Number(/got SIGTERM at (\d+)/.exec(log)?.[1]);
    expect(sigtermAt - deletedAt).toBeLessThan(3000);
    expect(log).toContain('drained');
    expect(tookMs).toBeGreaterThanOrEqual(1500);
    expect(tookMs).toBeLessThan(8000);
    expect(() => process.kill(pid, 0)).toThrow();
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${dir}/containers/app.pid`)).toBe(false);

    // A process that ignores SIGTERM is killed when the grace period ends.
    const stubborn = "process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('up'); setInterval(() => {}, 1000)";
    await core.createNamespacedPod({ namespace: ns(), body: { metadata: { name: 'stubborn' }, spec: { terminationGracePeriodSeconds: 3, containers: [nodeScript('app', stubborn)] } } });
    await until('stubborn up', 30_000, async () => containerLog(ns(), 'stubborn', 'app').includes('up'));
    const t0 = Date.now();
    await core.deleteNamespacedPod({ name: 'stubborn', namespace: ns() });
    await until('stubborn gone', 20_000, () => gone('stubborn'));
    const killedAfter = Date.now() - t0;
    expect(containerLog(ns(), 'stubborn', 'app')).toContain('ignoring SIGTERM');
    expect(killedAfter).toBeGreaterThanOrEqual(3000);
    expect(killedAfter).toBeLessThan(9000);
    const reasons = (await core.listNamespacedEvent({ namespace: ns(), fieldSelector: 'involvedObject.name=stubborn' })).items.map((e) => e.reason);
    expect(reasons).toContain('Killing');
  });

  it('runs a pod that finishes under restartPolicy Never to Succeeded and tears its network down', async () => {
    await core.createNamespacedPod({ namespace: ns(), body: { metadata: { name: 'job' }, spec: { restartPolicy: 'Never', containers: [nodeScript('once', "console.log('done')")] } } });
    const p = await until('Succeeded', 30_000, async () => {
      const pod = await readPod('job');
      return pod.status?.phase === 'Succeeded' && pod;
    });
    expect(status(p, 'once')?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(p.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    await until('sandbox removed', 10_000, async () => (await readPod('job')).status?.conditions?.find((c) => c.type === 'PodReadyToStartContainers')?.status === 'False');
    expect(containerLog(ns(), 'job', 'once')).toBe('done\n');
  });

  it('keeps running pods, and picks up new ones and deletions, across an API server restart', async () => {
    const sleeper = (name: string) => core.createNamespacedPod({ namespace: ns(), body: { metadata: { name }, spec: { terminationGracePeriodSeconds: 2, containers: [nodeScript('app', "console.log('up'); setInterval(() => {}, 1000)")] } } });
    await sleeper('before-restart');
    await until('before-restart running', 30_000, async () => (await readPod('before-restart')).status?.phase === 'Running');
    const pid = containerPid(ns(), 'before-restart', 'app');
    await restartApiServer();
    await sleeper('after-restart');
    await until('after-restart running', 60_000, async () => (await readPod('after-restart')).status?.phase === 'Running');
    expect(containerPid(ns(), 'before-restart', 'app')).toBe(pid);
    await core.deleteNamespacedPod({ name: 'before-restart', namespace: ns() });
    await until('before-restart gone', 60_000, () => gone('before-restart'));
  });
});
