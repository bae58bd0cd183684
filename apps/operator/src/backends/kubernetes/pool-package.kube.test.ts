/**
 * Packages on the pool executor, Kubernetes (docs/kubernetes-backend.md "Packages"), on the real
 * control plane with the process kubelet: a pool Environment renders no package volume while the
 * namespace has none (a pod on a missing claim would wait forever); a pool Function with a package
 * makes the operator create the volume and build the package, the pool Deployment then mounts the
 * volume read-only, and the cold path specializes a pool pod with the built folder, which answers
 * through the package's dependency. A package not built yet is refused without claiming a pod.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFolder } from '@orrery/builder';
import { eventually } from '@orrery/kube-testenv';
import type { BuildStatus, Condition } from '@orrery/spec';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { COMPONENT_LABEL, REVISION_LABEL } from './render/labels.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
let client: KubeClient;
let ns = '';
let op: KubernetesFunctionOperator | undefined;
let control: Server | undefined;
let controlUrl = '';
const work = mkdtempSync(join(tmpdir(), 'pool-pkg-kube-'));

/** A package folder whose module imports a vendored file: dependency (npm pack, offline). */
function packageFolder(name: string): string {
  const dep = join(work, `${name}-dep`);
  mkdirSync(dep, { recursive: true });
  writeFileSync(join(dep, 'package.json'), JSON.stringify({ name: 'greeting-dep', version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(dep, 'index.js'), "module.exports = (who) => 'hello ' + who + ' from greeting-dep';\n");
  const dir = join(work, name);
  mkdirSync(join(dir, 'vendor'), { recursive: true });
  execFileSync('npm', ['pack', '--silent', '--pack-destination', join(dir, 'vendor')], { cwd: dep, stdio: 'ignore' });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pool-pkg', version: '1.0.0', type: 'module', main: 'index.mjs', dependencies: { 'greeting-dep': 'file:vendor/greeting-dep-1.0.0.tgz' } }));
  writeFileSync(join(dir, 'index.mjs'), "import greet from 'greeting-dep';\nexport default async (req, ctx) => new Response(greet(ctx.revision));\n");
  return dir;
}

const applyPoolFunction = (name: string, sha256: string) =>
  client.apply({ apiVersion: GV, kind: 'Function', metadata: { name, namespace: ns }, spec: { template: { source: { package: { sha256 } }, executor: 'pool', environment: 'nodejs', timeoutSeconds: 30 } } });
const fnOf = async (name: string) => (await client.get<KubeObject & { status?: { build?: BuildStatus; conditions?: Condition[] } }>(GV, 'Function', ns, name))!;
const revReady = async (name: string) => (((await client.get(GV, 'Revision', ns, name))?.status as Any | undefined)?.conditions as Condition[] | undefined)?.find((c) => c.type === 'Ready');
const poolPodSpec = async () => ((await client.get('apps/v1', 'Deployment', ns, 'orrery-pool-nodejs')) as Any | undefined)?.spec.template.spec as Any | undefined;
const mountsPackages = (spec: Any | undefined) => (spec?.volumes as Any[] | undefined)?.some((v) => v.persistentVolumeClaim?.claimName === 'orrery-packages') === true;
const pods = async () => (await client.list<KubeObject & { spec: Any; status?: Any }>('v1', 'Pod', ns)).items.filter((p) => !p.metadata.deletionTimestamp);
const readyPool = async () => (await pods()).filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && p.status?.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True'));

async function specialize(fn: string): Promise<{ status: number; json: Any }> {
  const res = await fetch(`${controlUrl}/v1/executor/specialize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ namespace: ns, function: fn, revision: `${fn}-00001` }) });
  return { status: res.status, json: (await res.json()) as Any };
}

beforeAll(async () => {
  client = kube.client;
  ns = await kube.freshNs('poolpkg');
  await defaultServiceAccount(client, ns);
  op = new KubernetesFunctionOperator({
    client,
    namespace: ns,
    packageBuilds: { builderImage: 'orrery/builder:test', timeoutSeconds: 120, volume: { size: '1Gi', accessMode: 'ReadWriteOnce' } },
    pool: { idleTimeoutMs: 120_000 },
  });
  await op.start();
  control = createServer((req, res) => {
    void op!.handleControl(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((r) => control!.listen(0, '127.0.0.1', r));
  controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: ns }, spec: { poolSize: 1 } });
}, 120_000);

afterAll(async () => {
  await op?.stop();
  control?.closeAllConnections();
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
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `orrery-package-${sha256.slice(0, 20)}`, namespace: ns }, binaryData: { 'package.tgz': archive.toString('base64') } });
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
