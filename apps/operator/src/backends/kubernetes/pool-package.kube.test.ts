/**
 * Packages on the pool executor, Kubernetes (docs/kubernetes-backend.md "Packages"), on the real
 * control plane with the process kubelet: a pool Environment renders no package volume while the
 * namespace has none (a pod on a missing claim would wait forever); a pool Function with a package
 * makes the operator create the volume and build the package, the pool Deployment then mounts the
 * volume read-only, and the cold path specializes a pool pod with the built folder, which answers
 * through the package's dependency. A package not built yet is refused without claiming a pod.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFolder } from '@orrery/builder';
import { eventually } from '@orrery/kube-testenv';
import type { Condition } from '@orrery/spec';
import type { KubernetesFunctionOperator } from './kube-function-operator.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { COMPONENT_LABEL, REVISION_LABEL } from './render/labels.ts';
import { writeGreetingDepPackage } from './testing/greeting-dep-package.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';
import { type OperatorControlServer, serveOperatorControl } from './testing/operator-control-server.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import { applyFunction, functionOf, startBuildingOperator, storeArchive } from './testing/package-builds.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let op: KubernetesFunctionOperator | undefined;
let control: OperatorControlServer | undefined;
const work = mkdtempSync(join(tmpdir(), 'pool-pkg-kube-'));

/** A package folder whose module imports a vendored file: dependency (npm pack, offline). */
const packageFolder = (name: string) =>
  writeGreetingDepPackage(work, name, {
    packageJson: JSON.stringify({ name: 'pool-pkg', version: '1.0.0', type: 'module', main: 'index.mjs', dependencies: { 'greeting-dep': 'file:vendor/greeting-dep-1.0.0.tgz' } }),
    indexMjs: "import greet from 'greeting-dep';\nexport default async (req, ctx) => new Response(greet(ctx.revision));\n",
  });

const applyPoolFunction = (name: string, sha256: string) => applyFunction(client, ns, name, { source: { package: { sha256 } }, executor: 'pool', environment: 'nodejs' });
const fnOf = (name: string) => functionOf(client, ns, name);
const revReady = async (name: string) => (((await client.get(GV, 'Revision', ns, name))?.status as Any | undefined)?.conditions as Condition[] | undefined)?.find((c) => c.type === 'Ready');
const poolPodSpec = async () => ((await client.get('apps/v1', 'Deployment', ns, 'orrery-pool-nodejs')) as Any | undefined)?.spec.template.spec as Any | undefined;
const mountsPackages = (spec: Any | undefined) => (spec?.volumes as Any[] | undefined)?.some((v) => v.persistentVolumeClaim?.claimName === 'orrery-packages') === true;
const pods = async () => (await client.list<KubeObject & { spec: Any; status?: Any }>('v1', 'Pod', ns)).items.filter((p) => !p.metadata.deletionTimestamp);
const readyPool = async () => (await pods()).filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && p.status?.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True'));

async function specialize(fn: string): Promise<{ status: number; json: Any }> {
  const res = await fetch(`${control!.url}/v1/executor/specialize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ namespace: ns, function: fn, revision: `${fn}-00001` }) });
  return { status: res.status, json: (await res.json()) as Any };
}

beforeAll(async () => {
  client = kube.client;
  ns = await kube.freshNs('poolpkg');
  await defaultServiceAccount(client, ns);
  op = await startBuildingOperator(client, ns, { pool: { idleTimeoutMs: 120_000 } });
  control = await serveOperatorControl(op);
  await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: ns }, spec: { poolSize: 1 } });
}, 120_000);

afterAll(async () => {
  await op?.stop();
  control?.close();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('packages on the pool executor (Kubernetes, real control plane)', () => {
  it('without a package volume in the namespace the pool names no claim, and its pods start', { timeout: 150_000 }, async () => {
    await eventually('a ready pool pod', async () => (await readyPool()).length === 1, 120_000, 250);
    expect(mountsPackages(await poolPodSpec())).toBe(false);
    expect(await client.get('v1', 'PersistentVolumeClaim', ns, 'orrery-packages')).toBeUndefined();
  });

  it('a package not built yet (no archive) is refused with 503 package_building, claiming no pod', { timeout: 60_000 }, async () => {
    await applyPoolFunction('waiting', 'e'.repeat(64));
    await eventually('waiting: ArchiveMissing', async () => (await fnOf('waiting')).status?.build?.reason === 'ArchiveMissing', 30_000, 300);
    await eventually('waiting-00001 gated', async () => (await revReady('waiting-00001'))?.reason === 'Building', 30_000, 300);
    expect(await specialize('waiting')).toMatchObject({ status: 503, json: { code: 'package_building' } });
    expect((await pods()).filter((p) => p.metadata.labels?.[REVISION_LABEL] === 'waiting-00001')).toEqual([]);
  });

  it('a pool Function with a package: built, the pool mounts the volume read-only, a specialized pod answers through the dependency', { timeout: 240_000 }, async () => {
    const { archive, sha256 } = await packFolder(packageFolder('good'));
    await storeArchive(client, ns, { archive, sha256 });
    await applyPoolFunction('greeter', sha256);
    const build = await eventually('greeter built', async () => {
      const b = (await fnOf('greeter')).status?.build;
      if (b?.phase === 'Failed') throw new Error(`build failed: ${b.reason} ${b.message ?? ''} ${b.log ?? ''}`);
      return b?.phase === 'Succeeded' && b;
    }, 150_000, 300);
    expect(build).toMatchObject({ sha256, reason: 'Built' });

    // The volume exists now: the Environment's pool Deployment mounts all of it, read-only.
    const spec = await eventually('the pool mounts the package volume', async () => {
      const s = await poolPodSpec();
      return mountsPackages(s) && s;
    }, 60_000, 300);
    expect(spec.volumes).toContainEqual({ name: 'packages', persistentVolumeClaim: { claimName: 'orrery-packages', readOnly: true } });
    expect(spec.containers[0].volumeMounts).toContainEqual({ name: 'packages', mountPath: '/var/orrery/packages', readOnly: true });
    await eventually('greeter-00001 Ready', async () => (await revReady('greeter-00001'))?.status === 'True', 60_000, 300);

    // A pod of the re-rendered pool (one from before has no mount and is never claimed for a package).
    const answer = await eventually('greeter specialized', async () => {
      const r = await specialize('greeter');
      if (r.status === 503) return undefined; // the mounting pool pod is still starting
      return r;
    }, 120_000, 500);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(await (await fetch(`http://${answer.json.address as string}/`)).text()).toBe('hello greeter-00001 from greeting-dep');
    const [pod] = (await pods()).filter((p) => p.metadata.labels?.[REVISION_LABEL] === 'greeter-00001');
    expect(mountsPackages(pod!.spec)).toBe(true);
  });
});
