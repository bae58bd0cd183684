/**
 * The registry follows the seed's configuration rule (every setting from a flag or the TOML
 * file, no defaults, start-up fails otherwise), so both ways the operator starts it — the local
 * process and the Kubernetes Deployment — must give every setting. Checked by the registry
 * binary itself (`--check-config`; apps do not import each other), with the tokens the
 * environment carries.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RegistryClusterSchema, parseResource, type RegistryCluster } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { renderRegistryDeployment } from './kubernetes/render/registry-cluster.ts';
import { REGISTRY_BIN, registryApiArgs } from './local/registry-api-process.ts';

const run = promisify(execFile);
const TOKEN_ENV = { ORRERY_REGISTRY_ADMIN_TOKEN: 'a'.repeat(24), ORRERY_REGISTRY_REPLICATION_TOKEN: 'r'.repeat(24), ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN: 's'.repeat(24) };

function cluster(spec: Record<string, unknown> = {}): RegistryCluster {
  const r = parseResource({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'registry', namespace: 'team-a', uid: 'u' }, spec: { replicas: 3, ...spec } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return RegistryClusterSchema.parse(r.resource);
}

/** What the registry binary makes of these args: its non-secret settings, or its refusal. */
async function check(args: string[]): Promise<Record<string, unknown>> {
  try {
    const { stdout } = await run(process.execPath, [REGISTRY_BIN, '--check-config', ...args], { env: { PATH: process.env.PATH, ...TOKEN_ENV }, timeout: 60_000 });
    const m = /^config ok (\{.*\})$/m.exec(stdout);
    if (!m) throw new Error(`unexpected output: ${stdout}`);
    return JSON.parse(m[1]!) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`orrery-registry refused the args: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
  }
}

describe('the registry settings the operator renders', () => {
  it("the CR's cleanupDeleteLimit default is the seed's 128", () => {
    expect(cluster().spec.registry).toMatchObject({ cleanupInterval: '30s', cleanupDeleteLimit: 128 });
  });

  it('Kubernetes: the Deployment\'s args start the registry, with the CR\'s settings', { timeout: 120_000 }, async () => {
    for (const [spec, intervalMs] of [[{}, 30_000], [{ registry: { cleanupInterval: '2s', cleanupDeleteLimit: 7 } }, 2000]] as const) {
      const rc = cluster(spec);
      const dep = renderRegistryDeployment(rc, { etcdEndpoints: ['http://e:2379'] }) as unknown as { spec: { template: { spec: { containers: Array<{ args: string[]; env: Array<{ name: string }> }> } } } };
      const container = dep.spec.template.spec.containers[0]!;
      expect(container.env.map((e) => e.name).sort()).toEqual(Object.keys(TOKEN_ENV).sort());
      expect(await check(container.args)).toEqual({
        region: 'default',
        clusterId: 'team-a/registry',
        etcdEndpoints: ['http://e:2379'],
        requestTimeoutMs: 5000,
        shutdownTimeoutMs: 10_000,
        cleanupIntervalMs: intervalMs,
        cleanupDeleteLimit: rc.spec.registry.cleanupDeleteLimit,
      });
    }
  });

  it('local: the API process\'s args start the registry', { timeout: 60_000 }, async () => {
    const rc = cluster();
    const args = registryApiArgs({ clusterId: 'team-a/registry', cleanupInterval: rc.spec.registry.cleanupInterval, cleanupDeleteLimit: rc.spec.registry.cleanupDeleteLimit, log: () => {} }, 'http://127.0.0.1:2379', 0, 0);
    expect(await check(args)).toMatchObject({ clusterId: 'team-a/registry', cleanupIntervalMs: 30_000, cleanupDeleteLimit: 128, etcdEndpoints: ['http://127.0.0.1:2379'] });
  });

  it('the check itself fails on what the registry refuses', { timeout: 60_000 }, async () => {
    await expect(check(['--port', '0', '--admin-port', '0', '--etcd-endpoints', 'http://127.0.0.1:2379'])).rejects.toThrow(/missing required settings .*node\.cluster_id \(--cluster-id\)/);
  });
});
