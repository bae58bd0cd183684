/**
 * Packages on the pool executor, local backend (docs/packages.md): a real operator (as root: with
 * worker isolation, so warm workers run under other uids than the builder), router and generic
 * workers. A pool Function whose module imports a dependency is built once and answers through
 * the router from a specialized warm worker loading the built folder (Node, and Python through
 * its own pool); a failed build leaves the revision BuildFailed and specializes nothing; a
 * package not built yet is refused with 503 package_building without costing a warm worker.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFolder } from '@orrery/builder';
import { writeNodePackage, writePythonPackage } from '@orrery/builder/testing';
import type { Condition, OrreryFunction } from '@orrery/spec';
import { type Platform, revisionReady, startPlatform } from '../../testing/platform.ts';
import { until } from '../../testing/spawn-server.ts';

const TOKEN = 'pool-packages-test-store-token';
type Workers = { pids: number[]; pool: { specializations: number; warm: Record<string, number> } };

describe('packages on the pool executor (local backend, real processes)', () => {
  let p: Platform;
  let dir: string;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const workers = async (): Promise<Workers> => (await (await fetch(`${p.op.url}/v1/workers`, { headers: auth })).json()) as Workers;
  const upload = async (folder: string): Promise<string> => {
    const { archive, sha256 } = await packFolder(folder);
    const res = await fetch(`${p.op.url}/v1/packages/default/${sha256}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', ...auth }, body: new Uint8Array(archive) });
    expect(res.status).toBe(201);
    return sha256;
  };
  const fn = (name: string, sha256: string, environment?: string) => ({
    apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name, namespace: 'default' },
    spec: { template: { executor: 'pool', timeoutSeconds: 30, ...(environment ? { environment } : {}), source: { package: { sha256 } } } },
  });
  const stored = async (name: string) => (await p.store.get('Function', 'default', name)) as OrreryFunction | undefined;
  const ready = (conditions: readonly Condition[] | undefined) => conditions?.find((c) => c.type === 'Ready');
  const specialize = (name: string) =>
    fetch(`${p.op.url}/v1/executor/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ namespace: 'default', function: name, revision: `${name}-00001` }) });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'orrery-pool-packages-'));
    p = await startPlatform({ operatorArgs: ['--pool-size', '1', '--pool-idle-timeout', '60s'], routerArgs: [], storeToken: TOKEN });
  }, 60_000);

  afterAll(async () => {
    await p?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('a Node package: built once, then a warm worker is specialized with the built folder and answers through its dependency', { timeout: 90_000 }, async () => {
    // The handler also says which uid it runs as: as root, warm workers run under their own uids (worker-uid.ts).
    await writeNodePackage(join(dir, 'padder'), { 'handler.mjs': "import leftPad from 'left-pad';\nexport default () => new Response(`${leftPad('7', 3, '0')} ${process.getuid()}`);\n" });
    const sha256 = await upload(join(dir, 'padder'));
    await p.store.apply(fn('padder', sha256));
    const built = await until(() => stored('padder'), (f) => f?.status?.build?.phase === 'Succeeded' || f?.status?.build?.phase === 'Failed', 60_000, 'padder built');
    expect(built!.status!.build, built!.status!.build?.log).toMatchObject({ phase: 'Succeeded', dependencies: 1 });
    await until(() => p.revision('padder-00001'), (r) => r !== undefined, 20_000, 'padder-00001 created');
    expect(ready((await revisionReady(p, 'padder-00001', 30_000)).status?.conditions)).toMatchObject({ status: 'True', reason: 'PoolExecutor' });
    // The pool warms once a pool revision is reconciled.
    await until(workers, (w) => w.pool.warm['default/nodejs'] === 1, 30_000, 'a warm node worker');
    await p.publishRoutes();
    const before = await workers();
    const res = await until(() => fetch(`${p.routerUrl}/default/padder/`), (r) => r.status === 200, 30_000, 'padder answers');
    const [padded, uid] = (await res.text()).split(' ');
    expect(padded).toBe('007');
    // As root the worker reads the built folder under another uid than the builder's (the operator's).
    if (process.getuid?.() === 0) expect(Number(uid)).not.toBe(0);
    expect((await workers()).pool.specializations).toBe(before.pool.specializations + 1);
    expect(p.op.output().match(/building package/g)?.length).toBe(1);
  });

  it('a Python package on a python Environment\'s pool: pip builds it, a warm python3 worker imports it', { timeout: 90_000 }, async () => {
    await p.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'python', namespace: 'default' }, spec: { image: 'orrery/runtime-python:latest', poolSize: 1 } });
    await writePythonPackage(join(dir, 'pypad'));
    const sha256 = await upload(join(dir, 'pypad'));
    await p.store.apply(fn('pypad', sha256, 'python'));
    const built = await until(() => stored('pypad'), (f) => f?.status?.build?.phase === 'Succeeded' || f?.status?.build?.phase === 'Failed', 60_000, 'pypad built');
    expect(built!.status!.build, built!.status!.build?.log).toMatchObject({ phase: 'Succeeded', dependencies: 1, builder: expect.stringMatching(/^python pip/) });
    await until(() => p.revision('pypad-00001'), (r) => r !== undefined, 20_000, 'pypad-00001 created');
    await revisionReady(p, 'pypad-00001', 30_000);
    await until(workers, (w) => w.pool.warm['default/python'] === 1, 30_000, 'a warm python worker');
    await p.publishRoutes();
    const res = await until(() => fetch(`${p.routerUrl}/default/pypad/`), (r) => r.status === 200, 30_000, 'pypad answers');
    expect(await res.text()).toBe('007');
  });

  it('a failed build: the pool revision is BuildFailed and nothing is specialized for it', { timeout: 90_000 }, async () => {
    await writeNodePackage(join(dir, 'broken'), { 'package.json': JSON.stringify({ name: 'broken', version: '1.0.0', dependencies: { nope: 'file:vendor/nope-9.9.9.tgz' } }) });
    const sha256 = await upload(join(dir, 'broken'));
    await p.store.apply(fn('broken', sha256));
    await until(() => stored('broken'), (f) => f?.status?.build?.phase === 'Failed', 60_000, 'broken failed');
    const f = await until(() => stored('broken'), (x) => ready(x?.status?.conditions)?.reason === 'BuildFailed', 20_000, 'broken Ready says BuildFailed');
    expect(ready(f!.status!.conditions)).toMatchObject({ status: 'False', message: expect.stringContaining('DependenciesFailed') });
    const rev = await until(() => p.revision('broken-00001'), (r) => ready(r?.status?.conditions)?.reason === 'BuildFailed', 20_000, 'broken-00001 gated');
    expect(ready(rev!.status!.conditions)).toMatchObject({ status: 'False' });
    const before = await workers();
    const res = await specialize('broken');
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'package_build_failed', error: expect.stringContaining('DependenciesFailed') });
    expect((await workers()).pool.specializations).toBe(before.pool.specializations);
    expect(p.endpoints().filter((e) => e.function === 'broken')).toEqual([]);
  });

  it('a package not built yet (archive missing): 503 package_building, no warm worker spent', { timeout: 30_000 }, async () => {
    await p.store.apply(fn('waiting', 'e'.repeat(64)));
    await until(() => stored('waiting'), (x) => x?.status?.build?.reason === 'ArchiveMissing', 20_000, 'waiting ArchiveMissing');
    await until(() => p.revision('waiting-00001'), (r) => ready(r?.status?.conditions)?.reason === 'Building', 20_000, 'waiting-00001 gated');
    const before = await workers();
    const res = await specialize('waiting');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'package_building', error: expect.stringContaining('ArchiveMissing') });
    expect((await workers()).pool.specializations).toBe(before.pool.specializations);
    expect((await workers()).pool.warm).toEqual(before.pool.warm);
  });
});
