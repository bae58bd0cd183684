/**
 * Packages with dependencies on the local platform (docs/packages.md): a real operator, router and
 * workers (testing/platform.ts). A folder whose handler imports a dependency is packed, uploaded
 * to PUT /v1/packages/, built once (npm, offline: a vendored file: dependency) and served; a second
 * Function with the same archive builds nothing; a broken package.json fails the build with npm's
 * words in status.build; the upload endpoint refuses what it must.
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

const TOKEN = 'packages-test-store-token';
const MAX = 256 * 1024;

describe('packages on the local backend (real processes, real npm)', () => {
  let p: Platform;
  let dir: string;
  const upload = (sha256: string, body: Uint8Array, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }, namespace = 'default') =>
    fetch(`${p.op.url}/v1/packages/${namespace}/${sha256}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', ...headers }, body: new Uint8Array(body) });
  const fn = (name: string, sha256: string, environment?: string) => ({
    apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name, namespace: 'default' },
    spec: { template: { executor: 'deploy', ...(environment ? { environment } : {}), source: { package: { sha256 } } } },
  });
  const stored = async (name: string) => (await p.store.get('Function', 'default', name)) as OrreryFunction | undefined;
  const ready = (conditions: readonly Condition[] | undefined) => conditions?.find((c) => c.type === 'Ready');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'orrery-local-packages-'));
    p = await startPlatform({ operatorArgs: ['--max-package-bytes', String(MAX)], storeToken: TOKEN });
  }, 60_000);

  afterAll(async () => {
    await p?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('builds an uploaded folder once, and its function answers using the dependency', { timeout: 90_000 }, async () => {
    await writeNodePackage(join(dir, 'padder'));
    const { archive, sha256 } = await packFolder(join(dir, 'padder'));
    expect((await upload(sha256, archive)).status).toBe(201);
    expect((await upload(sha256, archive)).status).toBe(200);
    await p.store.apply(fn('padder', sha256));
    const built = await until(() => stored('padder'), (f) => f?.status?.build?.phase === 'Succeeded', 60_000, 'padder built');
    expect(built!.status!.build).toMatchObject({ sha256, phase: 'Succeeded', reason: 'Built', dependencies: 1, builder: expect.stringMatching(/^node npm/) });
    await until(() => p.revision('padder-00001'), (r) => r !== undefined, 20_000, 'padder-00001 created');
    await revisionReady(p, 'padder-00001', 30_000);
    await p.publishRoutes();
    const res = await until(() => fetch(`${p.routerUrl}/default/padder/`), (r) => r.status === 200, 20_000, 'padder answers');
    expect(await res.text()).toBe('007');

    // A second Function with the same archive shares the build: same key, same startedAt, no second run.
    await p.store.apply(fn('padder-two', sha256));
    const second = await until(() => stored('padder-two'), (f) => f?.status?.build?.phase === 'Succeeded', 30_000, 'padder-two built');
    expect(second!.status!.build!.key).toBe(built!.status!.build!.key);
    expect(p.op.output().match(/building package/g)?.length).toBe(1);
  });

  it('two Functions applied together with one new archive share one build', { timeout: 90_000 }, async () => {
    await writeNodePackage(join(dir, 'twins'), { 'README.md': 'twins' });
    const { archive, sha256 } = await packFolder(join(dir, 'twins'));
    expect((await upload(sha256, archive)).status).toBe(201);
    await Promise.all([p.store.apply(fn('twin-a', sha256)), p.store.apply(fn('twin-b', sha256))]);
    const [a, b] = await Promise.all(['twin-a', 'twin-b'].map((n) => until(() => stored(n), (f) => f?.status?.build?.phase === 'Succeeded', 60_000, `${n} built`)));
    expect(a!.status!.build!.startedAt).toBe(b!.status!.build!.startedAt);
    expect(p.op.output().split(`building package ${sha256.slice(0, 12)}`).length - 1).toBe(1);
  });

  it('a Python folder with a vendored wheel: pip builds it, the python3 worker imports it', { timeout: 90_000 }, async () => {
    await p.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'python', namespace: 'default' }, spec: { image: 'orrery/runtime-python:latest', poolSize: 0 } });
    await writePythonPackage(join(dir, 'pypad'));
    const { archive, sha256 } = await packFolder(join(dir, 'pypad'));
    expect((await upload(sha256, archive)).status).toBe(201);
    await p.store.apply(fn('pypad', sha256, 'python'));
    const built = await until(() => stored('pypad'), (f) => f?.status?.build?.phase === 'Succeeded' || f?.status?.build?.phase === 'Failed', 60_000, 'pypad built');
    expect(built!.status!.build, built!.status!.build?.log).toMatchObject({ phase: 'Succeeded', dependencies: 1, builder: expect.stringMatching(/^python pip/) });
    await until(() => p.revision('pypad-00001'), (r) => r !== undefined, 20_000, 'pypad-00001 created');
    await revisionReady(p, 'pypad-00001', 30_000);
    await p.publishRoutes();
    const res = await until(() => fetch(`${p.routerUrl}/default/pypad/`), (r) => r.status === 200, 20_000, 'pypad answers');
    expect(await res.text()).toBe('007');
  });

  it('a broken package.json: Failed DependenciesFailed with npm\'s words, Ready False BuildFailed, no worker', { timeout: 90_000 }, async () => {
    await writeNodePackage(join(dir, 'broken'), { 'package.json': JSON.stringify({ name: 'broken', version: '1.0.0', dependencies: { nope: 'file:vendor/nope-9.9.9.tgz' } }) });
    const { archive, sha256 } = await packFolder(join(dir, 'broken'));
    expect((await upload(sha256, archive)).status).toBe(201);
    await p.store.apply(fn('broken', sha256));
    const failed = await until(() => stored('broken'), (f) => f?.status?.build?.phase === 'Failed', 60_000, 'broken failed');
    expect(failed!.status!.build).toMatchObject({ reason: 'DependenciesFailed', message: expect.stringMatching(/npm exited/), log: expect.stringMatching(/nope|ENOENT/) });
    const f = await until(() => stored('broken'), (x) => ready(x?.status?.conditions)?.reason === 'BuildFailed', 20_000, 'broken Ready says BuildFailed');
    expect(ready(f!.status!.conditions)).toMatchObject({ status: 'False', message: expect.stringContaining('DependenciesFailed') });
    const rev = await until(() => p.revision('broken-00001'), (r) => ready(r?.status?.conditions)?.reason === 'BuildFailed', 20_000, 'broken-00001 gated');
    expect(rev!.status).toMatchObject({ readyWorkers: 0 });
    expect(p.endpoints().filter((e) => e.function === 'broken')).toEqual([]);
  });

  it('a Function whose archive is not uploaded waits with ArchiveMissing', { timeout: 30_000 }, async () => {
    await p.store.apply(fn('waiting', 'e'.repeat(64)));
    const f = await until(() => stored('waiting'), (x) => x?.status?.build?.reason === 'ArchiveMissing', 20_000, 'waiting ArchiveMissing');
    expect(f!.status!.build).toMatchObject({ phase: 'Pending', message: expect.stringContaining('orrery deploy --code DIR') });
    // status.build and the conditions are written by two writers (the build record, then the
    // Function's reconcile): Ready follows the record in the next reconcile, not in the same write.
    const g = await until(() => stored('waiting'), (x) => ready(x?.status?.conditions)?.reason === 'Building', 20_000, 'waiting Ready says Building');
    expect(ready(g!.status!.conditions)).toMatchObject({ status: 'Unknown', reason: 'Building' });
  });

  it('the upload endpoint refuses no token, a viewer, an oversized body, a wrong hash and a non-archive', { timeout: 30_000 }, async () => {
    const { archive, sha256 } = await packFolder(join(dir, 'padder'));
    const none = await upload(sha256, archive, {});
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'unauthorized' });
    expect((await upload(sha256, archive, { authorization: 'Bearer wrong-token' })).status).toBe(401);
    const big = Buffer.alloc(MAX + 1, 1);
    const tooLarge = await upload('a'.repeat(64), big);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ code: 'package_too_large' });
    const wrong = await upload('b'.repeat(64), archive);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'package_sha256_mismatch' });
    const { createHash } = await import('node:crypto');
    const text = Buffer.from('not an archive');
    const notArchive = await upload(createHash('sha256').update(text).digest('hex'), text);
    expect(await notArchive.json()).toMatchObject({ code: 'package_not_archive' });
    expect((await upload('NOT-HEX', archive)).status).toBe(400);
    expect((await upload(sha256, archive, { authorization: `Bearer ${TOKEN}` }, 'Bad_NS')).status).toBe(400);
    const head = await fetch(`${p.op.url}/v1/packages/default/${sha256}`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(head.status).toBe(200);
  });
});
