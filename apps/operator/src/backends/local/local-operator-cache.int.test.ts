/**
 * The local operator's reconcilers read its informer cache (local-object-cache.ts), not the
 * embedded store: repeated reconciles of a settled Function cost no store read (package builds'
 * status.build check included), a template change
 * still makes exactly one new Revision however often the Function is reconciled meanwhile, and a
 * deleted Function still takes its Revisions with it. Real store (embedded); no workers run.
 */
import { connect } from '@orrery/db';
import type { OrreryFunction, ResourceKind, Revision } from '@orrery/spec';
import { type ResourceStore, createLocalStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBuildStatus } from './local-build-status.ts';
import { LocalFunctionOperator } from './local-function-operator.ts';
import { LocalPackageBuilds } from './local-package-builds.ts';
import { workerlessBackend } from './testing/workerless-backend.ts';

const NS = 'cache';
let conn: ReturnType<typeof connect>;
let store: ResourceStore;
let operator: LocalFunctionOperator;
let dataDir: string;
const reads: string[] = [];
const failures: string[] = [];

/** The store, with every get and list the operator makes written down (`get Function`, `list Revision`). */
const counting = (s: ResourceStore): ResourceStore =>
  new Proxy(s, {
    get(target, prop, receiver) {
      if (prop === 'get') return (kind: ResourceKind, ...rest: [string, string]) => (reads.push(`get ${kind}`), target.get(kind, ...rest));
      if (prop === 'list') return (kind: ResourceKind, ...rest: [object?]) => (reads.push(`list ${kind}`), target.list(kind, ...rest));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });

const fn = (name: string, version: number) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: NS },
  spec: { template: { environment: 'nodejs', source: { inline: `export default () => "v${version}"` } } },
});

const revisions = async (name: string) =>
  ((await store.list('Revision', { namespace: NS, labels: { 'orrery.dev/function': name } })).items as Revision[]).map((r) => r.metadata.name).sort();

async function idle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await operator.functions.idle();
    await operator.revisions.idle();
    await new Promise((r) => setTimeout(r, 50)); // the watch's events of the last writes
  }
}

beforeAll(async () => {
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
  await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { image: 'orrery/runtime-node:latest' } });
  dataDir = mkdtempSync(join(tmpdir(), 'orrery-operator-cache-'));
  const watched = counting(store);
  // Package builds observe every Function reconcile (status.build): covered by the no-read count too.
  const packages = new LocalPackageBuilds({
    dataDir,
    status: new LocalBuildStatus(watched),
    runtimeOf: async () => ({ ok: true, runtime: 'node', command: { command: process.execPath, args: [] } }),
    maxArchiveBytes: 1 << 20,
    changed: (namespace, name) => void operator.packageChanged(namespace, name),
  });
  operator = new LocalFunctionOperator({
    packages,
    store: watched,
    backend: workerlessBackend(),
    resyncMs: 3_600_000,
    log: (msg) => {
      if (msg.startsWith('reconcile ')) failures.push(msg);
    },
  });
  await operator.start();
}, 120_000);
afterAll(async () => {
  await operator?.stop();
  await store?.close();
  await conn?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the local operator reads its informer cache', () => {
  it('reconciles a settled Function and its Revision again without one store read', { timeout: 30_000 }, async () => {
    await store.apply(fn('steady', 1));
    await expect.poll(() => revisions('steady'), { timeout: 10_000 }).toEqual(['steady-00001']);
    await expect.poll(async () => ((await store.get('Function', NS, 'steady')) as OrreryFunction).status?.latestCreatedRevision, { timeout: 10_000 }).toBe('steady-00001');
    await idle();
    reads.length = 0;
    for (let i = 0; i < 10; i++) {
      operator.functions.add(`${NS}/steady`);
      operator.revisions.add(`${NS}/steady-00001`);
      await idle();
    }
    expect(reads).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('a template change makes exactly one new Revision while the Function is reconciled over and over', { timeout: 30_000 }, async () => {
    await store.apply(fn('busy', 1));
    await expect.poll(() => revisions('busy'), { timeout: 10_000 }).toEqual(['busy-00001']);
    await idle();
    await store.apply(fn('busy', 2));
    for (let i = 0; i < 20; i++) {
      operator.functions.add(`${NS}/busy`);
      await new Promise((r) => setImmediate(r));
    }
    await expect.poll(() => revisions('busy'), { timeout: 10_000 }).toEqual(['busy-00001', 'busy-00002']);
    await idle();
    expect(await revisions('busy')).toEqual(['busy-00001', 'busy-00002']);
    const stored = (await store.get('Function', NS, 'busy')) as OrreryFunction;
    expect(stored.status?.latestCreatedRevision).toBe('busy-00002');
    expect(failures).toEqual([]);
  });

  it('a deleted Function takes its Revisions with it', { timeout: 30_000 }, async () => {
    await store.apply(fn('gone', 1));
    await expect.poll(() => revisions('gone'), { timeout: 10_000 }).toEqual(['gone-00001']);
    await store.apply(fn('gone', 2));
    await expect.poll(() => revisions('gone'), { timeout: 10_000 }).toEqual(['gone-00001', 'gone-00002']);
    await store.delete('Function', NS, 'gone');
    await expect.poll(() => revisions('gone'), { timeout: 10_000 }).toEqual([]);
    expect(failures).toEqual([]);
  });
});
