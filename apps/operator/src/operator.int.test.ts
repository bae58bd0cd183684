import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OrreryFunction, Revision } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { type LocalOperatorProcess, startLocalOperator } from './testing/local-operator-process.ts';
import { type SpawnedServer, pidAlive, until } from './testing/spawn-server.ts';

const handler = (greeting: string) => `
export default async (request) => new Response(JSON.stringify({ greeting: ${JSON.stringify(greeting)}, pid: process.pid }), { headers: { 'content-type': 'application/json' } });
`;

const fn = (greeting: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'hello', namespace: 'default' },
  spec: { template: { source: { inline: handler(greeting) }, timeoutSeconds: 5 }, ...extra },
});

type Endpoint = { namespace: string; function: string; revision: string; address: string; ready: boolean };

describe('orrery-operator on the local backend (real processes)', () => {
  let local: LocalOperatorProcess;
  let op: SpawnedServer;
  let token = '';
  let store: ResourceStore;
  const endpointsFile = () => local.endpointsFile;
  const endpoints = (): Endpoint[] => {
    try {
      return (parse(readFileSync(endpointsFile(), 'utf8')) as Endpoint[] | null) ?? [];
    } catch {
      return [];
    }
  };
  const readyOf = (rev: string) => endpoints().filter((e) => e.revision === rev && e.ready);

  beforeAll(async () => {
    // No --store-token-file: the operator made one in its data dir (there is no token-less store).
    local = await startLocalOperator('orrery-operator-');
    ({ op, token, store } = local);
  }, 90_000);

  afterAll(async () => {
    await local?.stop();
  });

  it('turns a Function into revision 00001 with a ready worker and a Ready status', async () => {
    await store.apply(fn('one'));
    const f = await until<OrreryFunction>(
      () => store.get('Function', 'default', 'hello') as Promise<OrreryFunction>,
      (x) => x?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
      60_000,
      'function Ready',
    );
    expect(f.status!.latestReadyRevision).toBe('hello-00001');
    expect(f.status!.traffic).toEqual([{ revisionName: 'hello-00001', percent: 100, latestRevision: true }]);
    expect(f.status!.observedGeneration).toBe(1);
    const [ep] = await until(() => readyOf('hello-00001'), (l) => l.length === 1, 30_000, 'endpoint listed');
    const body = (await (await fetch(`http://${ep!.address}/`)).json()) as { greeting: string };
    expect(body.greeting).toBe('one');
  }, 120_000);

  it('an Environment gets Ready and observedGeneration', async () => {
    await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: 'default' }, spec: { poolSize: 1 } });
    const env = await until(
      () => store.get('Environment', 'default', 'nodejs'),
      (e) => e?.status?.observedGeneration === 1 && e.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      30_000,
      'environment Ready',
    );
    expect(env!.metadata.generation).toBe(1);
  }, 60_000);

  it('a template change creates revision 00002 and leaves 00001 untouched; a tagged old revision keeps running', async () => {
    const r1Before = (await store.get('Revision', 'default', 'hello-00001')) as Revision;
    await store.apply(fn('two', { traffic: [{ latestRevision: true, percent: 100 }, { revisionName: 'hello-00001', percent: 0, tag: 'old' }] }));
    const f = await until<OrreryFunction>(
      () => store.get('Function', 'default', 'hello') as Promise<OrreryFunction>,
      (x) => x?.status?.latestReadyRevision === 'hello-00002' && x.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
      60_000,
      'revision 2 ready',
    );
    expect(f.metadata.generation).toBe(2);
    expect(f.status!.traffic).toEqual([
      { revisionName: 'hello-00002', percent: 100, latestRevision: true },
      { revisionName: 'hello-00001', percent: 0, tag: 'old' },
    ]);
    const r1 = (await store.get('Revision', 'default', 'hello-00001')) as Revision;
    expect(r1.spec).toEqual(r1Before.spec);
    expect(r1.spec.template.source.inline).toContain('"one"');
    const [ep2] = await until(() => readyOf('hello-00002'), (l) => l.length === 1, 30_000, 'revision 2 endpoint');
    expect(((await (await fetch(`http://${ep2!.address}/`)).json()) as { greeting: string }).greeting).toBe('two');
    expect(readyOf('hello-00001')).toHaveLength(1); // reachable by tag, so it keeps its worker
  }, 120_000);

  it('restarts a killed worker', async () => {
    const [ep] = readyOf('hello-00002');
    const { pid } = (await (await fetch(`http://${ep!.address}/`)).json()) as { pid: number };
    process.kill(pid, 'SIGKILL');
    const [fresh] = await until(
      () => readyOf('hello-00002'),
      (l) => l.length === 1 && l[0]!.address !== ep!.address,
      60_000,
      'a new worker',
    );
    const after = (await (await fetch(`http://${fresh!.address}/`)).json()) as { pid: number; greeting: string };
    expect(after.pid).not.toBe(pid);
    expect(after.greeting).toBe('two');
  }, 90_000);

  it('reports a revision whose code cannot load as failing', async () => {
    await store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'broken', namespace: 'default' },
      spec: { template: { source: { inline: 'this is not javascript {' } } },
    });
    const f = await until<OrreryFunction>(
      () => store.get('Function', 'default', 'broken') as Promise<OrreryFunction>,
      (x) => x?.status?.conditions?.find((c) => c.type === 'ConfigurationsReady')?.status === 'False',
      90_000,
      'broken function reported',
    );
    expect(f.status!.conditions!.find((c) => c.type === 'ConfigurationsReady')!.reason).toBe('WorkerCrashing');
    await store.delete('Function', 'default', 'broken');
  }, 120_000);

  it('deleting a Function deletes its revisions and stops their workers', async () => {
    const workers = (await (await fetch(`${op.url}/v1/workers`, { headers: { authorization: `Bearer ${token}` } })).json()) as { pids: number[] };
    expect(workers.pids.length).toBeGreaterThan(0);
    await store.delete('Function', 'default', 'hello');
    await until(() => store.list('Revision', { namespace: 'default' }), (l) => l.items.length === 0, 30_000, 'revisions deleted');
    await until(() => endpoints().filter((e) => e.function === 'hello'), (l) => l.length === 0, 60_000, 'workers gone');
    await until(() => workers.pids.filter(pidAlive), (l) => l.length === 0, 30_000, 'worker processes exited');
  }, 120_000);

  it('SIGTERM stops the operator and every worker', async () => {
    await store.apply({ ...fn('three'), metadata: { name: 'last', namespace: 'default' } });
    await until(() => endpoints().filter((e) => e.function === 'last' && e.ready), (l) => l.length === 1, 60_000, 'worker up');
    const { pids } = (await (await fetch(`${op.url}/v1/workers`, { headers: { authorization: `Bearer ${token}` } })).json()) as { pids: number[] };
    expect(pids.length).toBeGreaterThan(0);
    expect(await op.stop('SIGTERM')).toBe(0);
    expect(pids.filter(pidAlive)).toEqual([]);
  }, 120_000);
});
