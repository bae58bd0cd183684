/**
 * Issue 25 on the real control plane (API server, controller manager with its Job controller, the
 * process kubelet running orrery/builder): a Node package folder with a `file:` dependency on a
 * vendored tarball (no registry) is packed, stored in the package store's ConfigMap, and named by
 * a Function → one build Job installs it into the namespace's package volume → status.build says
 * Succeeded with the counts → the worker pod mounts the built folder and answers through the
 * dependency. A broken package.json fails with DependenciesFailed and npm's words in status; a
 * second Function with the same archive reuses the first build.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFolder } from '@orrery/builder';
import { eventually } from '@orrery/kube-testenv';
import type { KubernetesFunctionOperator } from './kube-function-operator.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { BUILD_FIELD_MANAGER } from './package-build/kube-package-builds.ts';
import { writeGreetingDepPackage } from './testing/greeting-dep-package.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import { applyFunction, buildOf, functionOf, readyFalse, startBuildingOperator, storeArchive, workerAnswer } from './testing/package-builds.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const kube = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let op: KubernetesFunctionOperator | undefined;
const work = mkdtempSync(join(tmpdir(), 'pkg-build-kube-'));

/** A package folder: package.json, index.mjs, and the vendored dependency's tarball (npm pack, offline). */
const packageFolder = (name: string, packageJson: string) =>
  writeGreetingDepPackage(work, name, { packageJson, indexMjs: "import greet from 'greeting-dep';\nexport default async () => new Response(greet('pkg'));\n" });

const GOOD = JSON.stringify({ name: 'pkg-fn', version: '1.0.0', type: 'module', main: 'index.mjs', dependencies: { 'greeting-dep': 'file:vendor/greeting-dep-1.0.0.tgz' } });
/** Names a vendored tarball that is not there: npm install fails (ENOENT) and says so in its log. */
const BROKEN = JSON.stringify({ name: 'pkg-broken', version: '1.0.0', type: 'module', dependencies: { 'greeting-dep': 'file:vendor/greeting-dep-9.9.9.tgz' } });

const storePackage = async (dir: string) => storeArchive(client, ns, await packFolder(dir));
const jobs = async () => (await client.list<KubeObject & { spec: Any }>('batch/v1', 'Job', ns)).items;

beforeAll(async () => {
  client = kube.client;
  ns = await kube.freshNs('pkg');
  await defaultServiceAccount(client, ns);
  op = await startBuildingOperator(client, ns);
}, 120_000);

afterAll(async () => {
  await op?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('package builds on Kubernetes', () => {
  let goodSha = '';

  it('builds a package with a vendored file: dependency once, and its worker answers through the dependency', { timeout: 180_000 }, async () => {
    goodSha = await storePackage(packageFolder('good', GOOD));
    await applyFunction(client, ns, 'greeter', { source: { package: { sha256: goodSha } } });

    const build = await buildOf(client, ns, 'greeter', 'Succeeded');
    expect(build).toMatchObject({ sha256: goodSha, reason: 'Built', builder: 'node orrery/builder:test' });
    expect(build.dependencies).toBeGreaterThanOrEqual(1);
    expect(build.sizeBytes).toBeGreaterThan(0);
    // status.build is its own field manager's: the reconciler's applies never remove it.
    const stored = await functionOf(client, ns, 'greeter');
    expect(stored.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: BUILD_FIELD_MANAGER, subresource: 'status' }));

    const [job] = await jobs();
    expect(job!.metadata.name).toBe(`orrery-build-${build.key.slice(0, 20)}`);
    expect(job!.spec.backoffLimit).toBe(0);
    expect(job!.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'PersistentVolumeClaim', name: 'orrery-packages' });

    expect(await workerAnswer(client, ns, 'greeter-00001')).toBe('hello pkg from greeting-dep');
    await eventually('greeter Ready', async () => (await functionOf(client, ns, 'greeter')).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), 60_000, 300);
  });

  it('a second Function with the same archive reuses the build: no second Job', { timeout: 60_000 }, async () => {
    await applyFunction(client, ns, 'greeter-two', { source: { package: { sha256: goodSha } } });
    const build = await buildOf(client, ns, 'greeter-two', 'Succeeded');
    expect(build.key).toBe((await functionOf(client, ns, 'greeter')).status!.build!.key);
    expect((await jobs()).map((j) => j.metadata.name)).toEqual([`orrery-build-${build.key.slice(0, 20)}`]);
  });

  it('a package.json naming a missing dependency fails the build with DependenciesFailed and npm\'s words; the revision runs no workers', { timeout: 120_000 }, async () => {
    const sha = await storePackage(packageFolder('broken', BROKEN));
    await applyFunction(client, ns, 'broken', { source: { package: { sha256: sha } } });
    const build = await buildOf(client, ns, 'broken', 'Failed');
    expect(build.reason).toBe('DependenciesFailed');
    expect(build.log ?? '').toMatch(/ENOENT|greeting-dep-9\.9\.9/);
    const ready = await readyFalse(client, ns, 'broken');
    expect(ready.reason).toBe('BuildFailed');
    expect(ready.message).toContain('DependenciesFailed');
    expect(await client.get('apps/v1', 'Deployment', ns, 'broken-00001-deployment')).toBeUndefined();
    expect(await jobs()).toHaveLength(2);
  });
});
