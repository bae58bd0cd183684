/**
 * The cleanup sweep on a real etcd. etcd answers LeaseLeases from the contacted member's own
 * lessor, without a ReadIndex: a member resumed after SIGSTOP answered with its view from before
 * the pause (header revision 40) and the sweep deleted a live instance written at revision 41 —
 * the WGL check then saw an acknowledged registration vanish. Here that stale list is replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '@orrery/etcdcluster';
import type { Etcd3, ILeaseLeasesResponse } from 'etcd3';
import type { Instance } from '../model/instance.ts';
import { parseRegistration } from '../model/instance.ts';
import { regBody } from '../testing/fixture.ts';
import { dataClient } from './data-client.ts';
import { ExpirySweeper } from './expiry-sweeper.ts';
import { decodeInstance } from './instance-index.ts';
import { InstanceWriter } from './instance-writer.ts';
import { KeepAliveChannel } from './keepalive-channel.ts';
import { KeyLayout } from './keys.ts';

let cluster: EtcdCluster;
let client: Etcd3;
let keepAlive: KeepAliveChannel;
let prefixCount = 0;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  client = dataClient(cluster.endpoints(), 2000, 4000);
  keepAlive = new KeepAliveChannel(client, 4000);
}, 60_000);

afterAll(async () => {
  keepAlive?.close();
  client?.close();
  await cluster?.close();
});

/** The client, except that LeaseLeases answers `list` (what a lagging member would say). */
function withLeaseList(list: ILeaseLeasesResponse): Etcd3 {
  const leaseClient = new Proxy(client.leaseClient, {
    get: (target, prop, receiver) => (prop === 'leaseLeases' ? async () => list : Reflect.get(target, prop, receiver)),
  });
  return new Proxy(client, { get: (target, prop, receiver) => (prop === 'leaseClient' ? leaseClient : Reflect.get(target, prop, receiver)) });
}

/** An index view over the records currently under the layout's prefix. */
async function indexOf(keys: KeyLayout, override: (inst: Instance) => Instance = (i) => i): Promise<{ all(): IterableIterator<[string, Instance]> }> {
  const res = await client.getAll().prefix(keys.instancesPrefix).exec();
  const entries = new Map<string, Instance>();
  for (const kv of res.kvs) entries.set(kv.key.toString(), override(decodeInstance(kv)!));
  return { all: () => entries.entries() };
}

function layout(): KeyLayout {
  return new KeyLayout(`/sweep-test-${++prefixCount}`);
}

const record = (id: string) => {
  const parsed = parseRegistration(regBody('sweep', id));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

describe('ExpirySweeper', () => {
  it('keeps a live instance that a lagging member left out of its lease list', async () => {
    const keys = layout();
    const before = await client.leaseClient.leaseLeases();
    const writer = new InstanceWriter(client, keys, keepAlive);
    await writer.register(record('live'));
    const sweeper = new ExpirySweeper(withLeaseList(before), keys, await indexOf(keys), 60_000, 128);
    try {
      expect(await sweeper.tick()).toBe(0);
      expect(await client.get(`${keys.instancesPrefix}sweep/company.test.order.order-center.api/live`).string()).not.toBeNull();
      // The probe that proved the lease alive does not stay behind.
      expect(await client.get(keys.sweeperProbeKey).string()).toBeNull();
    } finally {
      await sweeper.close();
    }
  });

  it('removes records without a lease or whose lease is gone, at most deleteLimit per round', async () => {
    const keys = layout();
    const key = (id: string) => `${keys.instancesPrefix}sweep/company.test.order.order-center.api/${id}`;
    for (const id of ['no-lease-1', 'no-lease-2', 'revoked']) await client.put(key(id)).value(JSON.stringify(record(id)));
    const gone = await client.leaseClient.leaseGrant({ TTL: 60 });
    await client.leaseClient.leaseRevoke({ ID: gone.ID });
    // etcd never keeps a key on a revoked lease, so the index entry claims the revoked lease.
    const index = await indexOf(keys, (i) => (i.instanceId === 'revoked' ? { ...i, leaseId: BigInt(gone.ID).toString(16) } : i));
    const sweeper = new ExpirySweeper(client, keys, index, 60_000, 2);
    try {
      expect(await sweeper.tick()).toBe(2);
      expect(await sweeper.tick()).toBe(1);
      for (const id of ['no-lease-1', 'no-lease-2', 'revoked']) expect(await client.get(key(id)).string()).toBeNull();
    } finally {
      await sweeper.close();
    }
  });
});
