/**
 * Issue 21, item 2: `includeSnapshot=false` on a first connect (no `sinceRevision`). The seed
 * sends a snapshot "when sinceRevision cannot be resumed or on a first connect" only with
 * `includeSnapshot=true`; with `false` the stream starts with the changes made after it opened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '@orrery/etcdcluster';
import type { RunningRegistry } from './server.ts';
import { call, regBody, SseClient, startTestRegistry } from './testing/fixture.ts';

let cluster: EtcdCluster;
let registry: RunningRegistry;
const streams: SseClient[] = [];

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  registry = await startTestRegistry(cluster.endpoints(), [], { keepAliveMs: 300 });
}, 60_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await registry?.close();
  await cluster?.close();
}, 60_000);

const open = async (qs: string): Promise<SseClient> => {
  const s = await SseClient.open(`${registry.httpUrl}/api/v1/registry/watch?${qs}`);
  streams.push(s);
  return s;
};
const register = (ns: string, id: string) => call(registry.httpUrl, 'POST', '/api/v1/registry/register', regBody(ns, id));

describe('watch without a snapshot', () => {
  it('includeSnapshot=false on a first connect sends no snapshot, only what changes afterwards', { timeout: 30_000 }, async () => {
    const ns = 'nosnap';
    expect((await register(ns, 'before')).body.code).toBe('ok');
    const bare = await open(`namespace=${ns}&includeSnapshot=false`);
    expect(bare.status).toBe(200);
    // Keep-alives prove the stream is open and flowing; no snapshot may come first.
    await bare.waitFor('a keep-alive', () => bare.comments > 0);
    const after = await register(ns, 'after');
    expect(after.body.code).toBe('ok');
    await bare.waitFor('the upsert of "after"', (evs) => evs.some((e) => e.event === 'upsert'));
    expect(bare.events.map((e) => e.event)).toEqual(['upsert']);
    expect(bare.events[0]!.data.instance.instanceId).toBe('after');
    expect(Number(bare.events[0]!.id)).toBe(after.body.data.revision);
  });

  it('the default (and includeSnapshot=true) still starts with the snapshot', { timeout: 30_000 }, async () => {
    const ns = 'withsnap';
    expect((await register(ns, 'one')).body.code).toBe('ok');
    for (const qs of [`namespace=${ns}`, `namespace=${ns}&includeSnapshot=true`]) {
      const s = await open(qs);
      await s.waitFor('the snapshot', (evs) => evs.length > 0);
      expect(s.events[0]!.event).toBe('snapshot');
      expect(s.events[0]!.data.instances.map((i: { instanceId: string }) => i.instanceId)).toEqual(['one']);
    }
  });
});
