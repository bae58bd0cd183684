/**
 * The images the process kubelet maps besides Orrery's own: etcd (the built one), and postgres
 * and redis (Debian's, behind stand-ins for the official images' entrypoints), each run as the
 * chart and the operator run them and reached through a Service.
 */
import { execFileSync } from 'node:child_process';
import { CoreV1Api } from '@kubernetes/client-node';
import { waitFor } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, containerLog, createNamespace } from '../cluster-access.ts';

let core: CoreV1Api;
let ns: string;
let dispose: () => Promise<void>;

beforeAll(async () => {
  core = adminKubeConfig().makeApiClient(CoreV1Api);
  ({ name: ns, dispose } = await createNamespace('kubelet-img'));
});
afterAll(async () => dispose());

async function ready(pod: string, container: string): Promise<string> {
  const p = await waitFor(
    `${pod} ready`,
    90_000,
    async () => {
      const got = await core.readNamespacedPod({ name: pod, namespace: ns });
      return got.status?.containerStatuses?.[0]?.ready ? got : undefined;
    },
    () => containerLog(ns, pod, container),
    500,
  );
  return p.status!.podIP!;
}

describe('mapped images', () => {
  it('runs etcd images as the built etcd, as the operator renders them (command /usr/local/bin/etcd, non-root)', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'etcd-1' },
        spec: {
          securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
          volumes: [{ name: 'data', emptyDir: {} }],
          containers: [
            {
              name: 'etcd',
              image: 'quay.io/coreos/etcd:v3.7.3',
              command: ['/usr/local/bin/etcd'],
              args: ['--name=$(POD_NAME)', '--data-dir=/var/lib/etcd/data', '--listen-client-urls=http://0.0.0.0:2379', '--advertise-client-urls=http://$(POD_NAME):2379'],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              ports: [{ name: 'client', containerPort: 2379 }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'client' }, periodSeconds: 1 },
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/etcd' }],
            },
          ],
        },
      },
    });
    const ip = await ready('etcd-1', 'etcd');
    const health = (await (await fetch(`http://${ip}:2379/health`)).json()) as { health: string };
    expect(health.health).toBe('true');
    const pod = await core.readNamespacedPod({ name: 'etcd-1', namespace: ns });
    expect(pod.status?.containerStatuses?.[0]?.imageID).toMatch(/^process-kubelet:\/\/.*\/etcd$/);
  });

  it('runs postgres images as Debian\u2019s postgres, initialised from POSTGRES_* like the official image', async () => {
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'pg' }, stringData: { password: 'pg-secret' } } });
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'postgres' },
        spec: {
          volumes: [{ name: 'data', emptyDir: {} }],
          containers: [
            {
              name: 'postgres',
              image: 'postgres:16',
              env: [
                { name: 'POSTGRES_USER', value: 'orrery' },
                { name: 'POSTGRES_DB', value: 'orrery' },
                { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: 'pg', key: 'password' } } },
                { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
              ],
              ports: [{ containerPort: 5432 }],
              readinessProbe: { exec: { command: ['pg_isready', '-U', 'orrery', '-h', '127.0.0.1'] }, periodSeconds: 1 },
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
            },
          ],
        },
      },
    });
    const ip = await ready('postgres', 'postgres');
    // From the host, over the pod network, with the password (password auth for non-local hosts).
    const out = execFileSync('psql', ['-h', ip, '-U', 'orrery', '-d', 'orrery', '-tAc', 'select current_user, current_database()'], { env: { ...process.env, PGPASSWORD: 'pg-secret' } }).toString().trim();
    expect(out).toBe('orrery|orrery');
    expect(() => execFileSync('psql', ['-h', ip, '-U', 'orrery', '-d', 'orrery', '-tAc', 'select 1'], { env: { ...process.env, PGPASSWORD: 'wrong' }, stdio: 'pipe' })).toThrow(/password authentication failed/);
  });

  it('runs redis images as Debian\u2019s redis-server, reachable from other pods like the official image', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'redis', labels: { app: 'redis' } },
        spec: { containers: [{ name: 'redis', image: 'redis:7', ports: [{ containerPort: 6379 }], readinessProbe: { exec: { command: ['redis-cli', 'ping'] }, periodSeconds: 1 } }] },
      },
    });
    await core.createNamespacedService({ namespace: ns, body: { metadata: { name: 'redis' }, spec: { selector: { app: 'redis' }, ports: [{ port: 6379 }] } } });
    await ready('redis', 'redis');
    const svc = await core.readNamespacedService({ name: 'redis', namespace: ns });
    const pong = await waitFor('redis answers through its Service', 20_000, async () => {
      try {
        return execFileSync('redis-cli', ['-h', svc.spec!.clusterIP!, 'ping'], { stdio: 'pipe' }).toString().trim() || undefined;
      } catch {
        return undefined;
      }
    });
    expect(pong).toBe('PONG');
  });
});
