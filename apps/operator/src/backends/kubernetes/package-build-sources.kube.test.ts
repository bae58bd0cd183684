/**
 * Issue 25 on the real control plane, the package sources and outcomes package-build.kube.test.ts
 * leaves out (API server, controller manager with its Job controller, the process kubelet running
 * orrery/builder, orrery/runtime and orrery/runtime-python as local processes):
 * - `source.package.url`: the build pod's fetch init container downloads the archive from an HTTP
 *   server in this test (on the node address, which pods reach) and the worker answers from it; a
 *   URL serving other bytes than `sha256` names fails ArchiveInvalid, saying both hashes;
 * - a Python package (requirements.txt, a vendored wheel: no PyPI here) on an orrery/runtime-python
 *   Environment is built by pip and its worker answers through the dependency;
 * - the real orrery-operator started with `--build-timeout 3s`: a build whose npm hangs (its
 *   dependency's tarball URL never answers) ends Failed/BuildTimeout, the Job Failed, and the
 *   revision runs no workers.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFolder } from '@orrery/builder';
import { writeNodePackage, writePythonPackage } from '@orrery/builder/testing';
import { NETWORK, testEnv } from '@orrery/kube-testenv';
import { type SpawnedServer, spawnServer } from '../../testing/spawn-server.ts';
import type { KubernetesFunctionOperator } from './kube-function-operator.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { REVISION_LABEL } from './render/labels.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import { applyFunction, buildOf, readyFalse, startBuildingOperator, storeArchive, TEST_BUILDER_IMAGE, workerAnswer } from './testing/package-builds.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const GV = 'orrery.dev/v1alpha1';
const operatorBin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'orrery-operator.mjs');
const kube = operatorKubeSuite();
const work = mkdtempSync(join(tmpdir(), 'pkg-sources-kube-'));
let client: KubeClient;
let op: KubernetesFunctionOperator | undefined;
let spawned: SpawnedServer | undefined;

/** Archives by path, as a plain HTTP file server on the node address; `/hang/…` never answers. */
const served = new Map<string, Buffer>();
const requested: string[] = [];
let files: Server;
let filesUrl = '';

async function archiveOf(name: string, write: (dir: string) => Promise<void>): Promise<{ archive: Buffer; sha256: string }> {
  const dir = join(work, name);
  await write(dir);
  return packFolder(dir);
}

beforeAll(async () => {
  client = kube.client;
  files = createServer((req, res) => {
    requested.push(req.url ?? '');
    // A dependency's tarball that never comes: npm waits on it until the build times out.
    if (req.url?.startsWith('/hang/')) return;
    const body = served.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body);
  });
  // On the node address: build pods run in their own network namespace and cannot reach the host's loopback.
  await new Promise<void>((r) => files.listen(0, NETWORK.hostAddress, r));
  filesUrl = `http://${NETWORK.hostAddress}:${(files.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await op?.stop();
  await spawned?.stop();
  files?.closeAllConnections();
  await new Promise((r) => files?.close(r));
  rmSync(work, { recursive: true, force: true });
});

describe('package sources on Kubernetes (operator in the test)', () => {
  let ns = '';
  beforeAll(async () => {
    ns = await kube.freshNs('pkg-src');
    await defaultServiceAccount(client, ns);
    op = await startBuildingOperator(client, ns);
  }, 120_000);

  it('builds a package fetched from source.package.url (no ConfigMap) and its worker answers through the dependency', { timeout: 180_000 }, async () => {
    const { archive, sha256 } = await archiveOf('by-url', (d) => writeNodePackage(d));
    served.set('/archives/by-url.tgz', archive);
    await applyFunction(client, ns, 'by-url', { source: { package: { sha256, url: `${filesUrl}/archives/by-url.tgz` } } });

    const build = await buildOf(client, ns, 'by-url', 'Succeeded');
    expect(build).toMatchObject({ sha256, reason: 'Built', builder: `node ${TEST_BUILDER_IMAGE}`, dependencies: 1 });
    expect(requested).toContain('/archives/by-url.tgz');
    expect(await client.get('v1', 'ConfigMap', ns, `orrery-package-${sha256.slice(0, 20)}`)).toBeUndefined();
    const job = await client.get<KubeObject & { spec: Any }>('batch/v1', 'Job', ns, `orrery-build-${build.key.slice(0, 20)}`);
    expect(job!.spec.template.spec.initContainers.map((c: Any) => c.name)).toEqual(['fetch']);

    // writeNodePackage's handler: left-pad('7', 3, '0') from the vendored tarball.
    expect(await workerAnswer(client, ns, 'by-url-00001')).toBe('007');
  });

  it('a URL serving other bytes than sha256 names fails ArchiveInvalid with both hashes; the revision runs no workers', { timeout: 120_000 }, async () => {
    const { archive, sha256: actual } = await archiveOf('tampered', (d) => writeNodePackage(d, { 'handler.mjs': 'export default () => new Response("tampered");\n' }));
    served.set('/archives/tampered.tgz', archive);
    const claimed = createHash('sha256').update('the archive the Function was written for').digest('hex');
    await applyFunction(client, ns, 'tampered', { source: { package: { sha256: claimed, url: `${filesUrl}/archives/tampered.tgz` } } });

    const build = await buildOf(client, ns, 'tampered', 'Failed');
    expect(build.reason).toBe('ArchiveInvalid');
    expect(build.message).toContain(`sha256 is ${actual}, not ${claimed}`);
    expect(requested).toContain('/archives/tampered.tgz');
    const ready = await readyFalse(client, ns, 'tampered');
    expect(ready).toMatchObject({ reason: 'BuildFailed', message: expect.stringContaining('ArchiveInvalid') });
    expect(await client.get('apps/v1', 'Deployment', ns, 'tampered-00001-deployment')).toBeUndefined();
  });

  it('builds a Python package with pip from a vendored wheel, and the orrery/runtime-python worker answers through it', { timeout: 180_000 }, async () => {
    await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'python', namespace: ns }, spec: { image: 'orrery/runtime-python:latest', poolSize: 0 } });
    const { archive, sha256 } = await archiveOf('python', (d) => writePythonPackage(d));
    await storeArchive(client, ns, { archive, sha256 });
    await applyFunction(client, ns, 'pad-py', { source: { package: { sha256 } }, environment: 'python' });

    const build = await buildOf(client, ns, 'pad-py', 'Succeeded');
    expect(build).toMatchObject({ sha256, reason: 'Built', builder: `python ${TEST_BUILDER_IMAGE}`, dependencies: 1 });
    expect(build.log ?? '').toContain('--no-index --find-links vendor');
    // writePythonPackage's main.py: left_pad("7", 3, "0") from the wheel in .python-packages.
    expect(await workerAnswer(client, ns, 'pad-py-00001')).toBe('007');
  });
});

describe('build timeout on Kubernetes (the orrery-operator binary, --build-timeout 3s)', () => {
  it('a build whose npm hangs ends Failed with BuildTimeout, its Job Failed, and the revision runs no workers', { timeout: 150_000 }, async () => {
    const ns = await kube.freshNs('pkg-timeout');
    const leaseNs = await kube.freshNs('pkg-timeout-lease');
    await defaultServiceAccount(client, ns);
    spawned = await spawnServer(operatorBin, [
      '--backend', 'kubernetes', '--kubeconfig', testEnv().adminKubeconfig, '--namespace', ns, '--lease-namespace', leaseNs,
      '--port', '0', '--identity', 'pkg-timeout', '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
      '--builder-image', TEST_BUILDER_IMAGE, '--build-timeout', '3s', '--package-volume-size', '1Gi',
    ], { DATABASE_URL: '', POD_IP: '' });

    // npm installs with --ignore-scripts, so a sleeping install script would not run: the hang is a
    // dependency tarball whose server never answers.
    const hang = `/hang/slow-dep-${Date.now()}.tgz`;
    const { archive, sha256 } = await archiveOf('hangs', (d) =>
      writeNodePackage(d, { 'package.json': JSON.stringify({ name: 'hangs', version: '1.0.0', type: 'module', main: 'handler.mjs', dependencies: { 'slow-dep': `${filesUrl}${hang}` } }) }),
    );
    await storeArchive(client, ns, { archive, sha256 });
    await applyFunction(client, ns, 'hangs', { source: { package: { sha256 } } });

    const build = await buildOf(client, ns, 'hangs', 'Failed', 90_000);
    expect(build).toMatchObject({ reason: 'BuildTimeout', message: expect.stringMatching(/longer than 3 s/) });
    expect(requested).toContain(hang);
    const job = await client.get<KubeObject & { status?: Any; spec: Any }>('batch/v1', 'Job', ns, `orrery-build-${build.key.slice(0, 20)}`);
    expect(job?.spec.activeDeadlineSeconds).toBe(63);
    expect(job?.status?.conditions).toContainEqual(expect.objectContaining({ type: 'Failed', status: 'True' }));
    expect(job?.status?.active ?? 0).toBe(0);

    const ready = await readyFalse(client, ns, 'hangs');
    expect(ready).toMatchObject({ reason: 'BuildFailed', message: expect.stringContaining('BuildTimeout') });
    expect(await client.get('apps/v1', 'Deployment', ns, 'hangs-00001-deployment')).toBeUndefined();
    expect((await client.list('v1', 'Pod', ns, `${REVISION_LABEL}=hangs-00001`)).items).toEqual([]);
  });
});
