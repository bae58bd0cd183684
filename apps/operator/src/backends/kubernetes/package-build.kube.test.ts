/**
 * Issue 25 on the real control plane (API server, controller manager with its Job controller, the
 * process kubelet running orrery/builder): a Node package folder with a `file:` dependency on a
 * vendored tarball (no registry) is packed, stored in the package store's ConfigMap, and named by
 * a Function → one build Job installs it into the namespace's package volume → status.build says
 * Succeeded with the counts → the worker pod mounts the built folder and answers through the
 * dependency. A broken package.json fails with DependenciesFailed and npm's words in status; a
 * second Function with the same archive reuses the first build.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFolder } from '@orrery/builder';
import { eventually } from '@orrery/kube-testenv';
import type { BuildStatus, Condition } from '@orrery/spec';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { BUILD_FIELD_MANAGER } from './package-build/kube-package-builds.ts';
import { REVISION_LABEL } from './render/labels.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let op: KubernetesFunctionOperator | undefined;
const work = mkdtempSync(join(tmpdir(), 'pkg-build-kube-'));

/** A package folder: package.json, index.mjs, and the vendored dependency's tarball (npm pack, offline). */
function packageFolder(name: string, packageJson: string): string {
  const dep = join(work, `${name}-dep`);
  mkdirSync(dep, { recursive: true });
  writeFileSync(join(dep, 'package.json'), JSON.stringify({ name: 'greeting-dep', version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(dep, 'index.js'), "module.exports = (who) => 'hello ' + who + ' from greeting-dep';\n");
  const dir = join(work, name);
  mkdirSync(join(dir, 'vendor'), { recursive: true });
  execFileSync('npm', ['pack', '--silent', '--pack-destination', join(dir, 'vendor')], { cwd: dep, stdio: 'ignore' });
  writeFileSync(join(dir, 'package.json'), packageJson);
  writeFileSync(join(dir, 'index.mjs'), "import greet from 'greeting-dep';\nexport default async () => new Response(greet('pkg'));\n");
  return dir;
}

const GOOD = JSON.stringify({ name: 'pkg-fn', version: '1.0.0', type: 'module', main: 'index.mjs', dependencies: { 'greeting-dep': 'file:vendor/greeting-dep-1.0.0.tgz' } });
/** Names a vendored tarball that is not there: npm install fails (ENOENT) and says so in its log. */
const BROKEN = JSON.stringify({ name: 'pkg-broken', version: '1.0.0', type: 'module', dependencies: { 'greeting-dep': 'file:vendor/greeting-dep-9.9.9.tgz' } });

async function storeArchive(dir: string): Promise<string> {
  const { archive, sha256 } = await packFolder(dir);
  await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `orrery-package-${sha256.slice(0, 20)}`, namespace: ns }, binaryData: { 'package.tgz': archive.toString('base64') } });
  return sha256;
}

const applyFunction = (name: string, sha256: string) =>
  client.apply({ apiVersion: GV, kind: 'Function', metadata: { name, namespace: ns }, spec: { template: { source: { package: { sha256 } }, executor: 'deploy', timeoutSeconds: 30 } } });

const fnOf = async (name: string) => (await client.get<KubeObject & { status?: { build?: BuildStatus; conditions?: Condition[] } }>(GV, 'Function', ns, name))!;
const buildOf = (name: string, phase: BuildStatus['phase']) =>
  eventually(`${name}: status.build ${phase}`, async () => {
    const b = (await fnOf(name)).status?.build;
    if (b?.phase !== phase) throw new Error(`status.build: ${b ? `${b.phase} (${b.reason}): ${b.message ?? ''}` : 'none'}`);
    return b;
  }, 120_000, 300);
const jobs = async () => (await client.list<KubeObject & { spec: Any }>('batch/v1', 'Job', ns)).items;

beforeAll(async () => {
  client = kube.client;
  ns = await kube.freshNs('pkg');
  await defaultServiceAccount(client, ns);
  op = new KubernetesFunctionOperator({
    client,
    namespace: ns,
    packageBuilds: { builderImage: 'orrery/builder:test', timeoutSeconds: 120, volume: { size: '1Gi', accessMode: 'ReadWriteOnce' } },
  });
  await op.start();
}, 120_000);

afterAll(async () => {
  await op?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('package builds on Kubernetes', () => {
  let goodSha = '';

  it('builds a package with a vendored file: dependency once, and its worker answers through the dependency', { timeout: 180_000 }, async () => {
    goodSha = await storeArchive(packageFolder('good', GOOD));
    await applyFunction('greeter', goodSha);

    const build = await buildOf('greeter', 'Succeeded');
    expect(build).toMatchObject({ sha256: goodSha, reason: 'Built', builder: 'node orrery/builder:test' });
    expect(build.dependencies).toBeGreaterThanOrEqual(1);
    expect(build.sizeBytes).toBeGreaterThan(0);
    // status.build is its own field manager's: the reconciler's applies never remove it.
    const stored = await fnOf('greeter');
    expect(stored.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: BUILD_FIELD_MANAGER, subresource: 'status' }));

    const [job] = await jobs();
    expect(job!.metadata.name).toBe(`orrery-build-${build.key.slice(0, 20)}`);
    expect(job!.spec.backoffLimit).toBe(0);
    expect(job!.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'PersistentVolumeClaim', name: 'orrery-packages' });

    const pod = await eventually('a ready worker of greeter-00001', async () => {
      const pods = (await client.list<KubeObject & { status?: Any }>('v1', 'Pod', ns, `${REVISION_LABEL}=greeter-00001`)).items;
      return pods.find((p) => p.status?.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True'));
    }, 120_000, 300);
    const res = await fetch(`http://${pod.status!.podIP as string}:8080/`);
    expect(await res.text()).toBe('hello pkg from greeting-dep');
    await eventually('greeter Ready', async () => (await fnOf('greeter')).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), 60_000, 300);
  });

  it('a second Function with the same archive reuses the build: no second Job', { timeout: 60_000 }, async () => {
    await applyFunction('greeter-two', goodSha);
    const build = await buildOf('greeter-two', 'Succeeded');
    expect(build.key).toBe((await fnOf('greeter')).status!.build!.key);
    expect((await jobs()).map((j) => j.metadata.name)).toEqual([`orrery-build-${build.key.slice(0, 20)}`]);
  });

  it('a package.json naming a missing dependency fails the build with DependenciesFailed and npm\'s words; the revision runs no workers', { timeout: 120_000 }, async () => {
    const sha = await storeArchive(packageFolder('broken', BROKEN));
    await applyFunction('broken', sha);
    const build = await buildOf('broken', 'Failed');
    expect(build.reason).toBe('DependenciesFailed');
    expect(build.log ?? '').toMatch(/ENOENT|greeting-dep-9\.9\.9/);
    const ready = await eventually('broken: Ready False', async () => (await fnOf('broken')).status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False'), 60_000, 300);
    expect(ready.reason).toBe('BuildFailed');
    expect(ready.message).toContain('DependenciesFailed');
    expect(await client.get('apps/v1', 'Deployment', ns, 'broken-00001-deployment')).toBeUndefined();
    expect(await jobs()).toHaveLength(2);
  });
});
