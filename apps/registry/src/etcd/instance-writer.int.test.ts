/**
 * The heartbeat against a concurrent re-registration, on a real etcd. This interleaving made
 * the WGL check fail: the heartbeat read the instance on lease L, a re-registration moved it to
 * a new lease and revoked L, and the keep-alive on L answered "gone" — a 404 for an instance
 * that was registered the whole time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, waitFor } from '@orrery/etcdcluster';
import type { Etcd3 } from 'etcd3';
import { parseRegistration, type InstanceRecord } from '../model/instance.ts';
import { regBody } from '../testing/fixture.ts';
import { dataClient } from './data-client.ts';
import { InstanceWriter } from './instance-writer.ts';
import { KeepAliveChannel } from './keepalive-channel.ts';
import { KeyLayout } from './keys.ts';

/** Runs `before` once, between the heartbeat's read and its keep-alive. */
class KeepAliveAfter extends KeepAliveChannel {
  constructor(
    client: Etcd3,
    private before?: () => Promise<unknown>,
  ) {
    super(client, 4000);
  }

  override async once(leaseId: string): Promise<number> {
    const run = this.before;
    this.before = undefined;
    await run?.();
    return super.once(leaseId);
  }
}

/** Answers its first keep-alive like a resumed old leader that never saw the lease: gone (TTL -1). */
class StaleFirstAnswer extends KeepAliveChannel {
  staleAnswers = 0;
  restarts = 0;
  override async once(leaseId: string): Promise<number> {
    if (this.staleAnswers++ === 0) return -1;
    return super.once(leaseId);
  }
  override restart(why: string): void {
    this.restarts++;
    super.restart(why);
  }
}

let cluster: EtcdCluster;
let client: Etcd3;
const keys = new KeyLayout('/writer-test');

function record(id: string, version: string): InstanceRecord {
  const parsed = parseRegistration(regBody('hb', id, { labels: { version } }));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

/** The old lease is revoked fire-and-forget after the write returns: wait until it is gone. */
async function leaseGone(leaseHex: string): Promise<void> {
  await waitFor('lease revocation', 5000, async () => {
    const ttl = await client.leaseClient.leaseTimeToLive({ ID: BigInt(`0x${leaseHex}`).toString() });
    return Number(ttl.TTL) <= 0 ? true : undefined;
  });
}

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
  client = dataClient(cluster.endpoints(), 2000, 4000);
}, 60_000);

afterAll(async () => {
  client?.close();
  await cluster?.close();
});

describe('InstanceWriter.register', () => {
  it('does not revoke the new lease when the put was applied but its answer was lost', async () => {
    // The put reaches etcd and is applied; the client then sees a deadline (as when the leader
    // is paused right after proposing). Revoking the lease here deleted a registered instance.
    const kv = new Proxy(client.kv, {
      get: (target, prop, receiver) =>
        prop === 'put'
          ? async (req: Parameters<typeof client.kv.put>[0]) => {
              await target.put(req);
              throw new Error('4 DEADLINE_EXCEEDED: Deadline exceeded');
            }
          : Reflect.get(target, prop, receiver),
    });
    const lossy = new Proxy(client, { get: (target, prop, receiver) => (prop === 'kv' ? kv : Reflect.get(target, prop, receiver)) });
    const plain = new KeepAliveChannel(client, 4000);
    const writer = new InstanceWriter(lossy, keys, plain, client);
    try {
      await expect(writer.register(record('lost-answer', 'v1'))).rejects.toThrow(/DEADLINE/);
      await new Promise((r) => setTimeout(r, 300));
      const stored = await client.get(keys.instanceKey({ namespace: 'hb', service: 'company.test.order.order-center.api', instanceId: 'lost-answer' })).string();
      expect(stored).not.toBeNull();
    } finally {
      plain.close();
    }
  });
});

describe('InstanceWriter.register, puts committed together (put-batcher.ts)', () => {
  const svc = 'company.test.order.order-center.api';
  const stored = async (id: string) => {
    const res = await client.kv.range({ key: Buffer.from(keys.instanceKey({ namespace: 'hb', service: svc, instanceId: id })) });
    return res.kvs[0];
  };

  it('concurrent registrations share txns: fewer revisions than registrations, each record on its own lease', async () => {
    const plain = new KeepAliveChannel(client, 4000);
    const writer = new InstanceWriter(client, keys, plain);
    try {
      const outs = await Promise.all(Array.from({ length: 40 }, (_, i) => writer.register(record(`batch-${i}`, 'v1'))));
      expect(new Set(outs.map((o) => o.leaseId)).size).toBe(40);
      expect(new Set(outs.map((o) => o.revision)).size).toBeLessThan(40);
      expect(writer.puts!.batches).toBeGreaterThan(0);
      for (const [i, o] of outs.entries()) {
        const kv = await stored(`batch-${i}`);
        expect(Number(kv!.mod_revision)).toBe(o.revision);
        expect(BigInt(kv!.lease).toString(16)).toBe(o.leaseId);
      }
    } finally {
      plain.close();
    }
  });

  it('re-registrations committed in one txn each revoke their own old lease', async () => {
    const plain = new KeepAliveChannel(client, 4000);
    const writer = new InstanceWriter(client, keys, plain);
    try {
      const first = await Promise.all(['m0', 'm1', 'm2', 'm3'].map((id) => writer.register(record(id, 'v1'))));
      const second = await Promise.all(['m0', 'm1', 'm2', 'm3'].map((id) => writer.register(record(id, 'v2'))));
      expect(new Set(second.map((o) => o.revision)).size).toBeLessThan(4);
      await Promise.all(first.map((o) => leaseGone(o.leaseId)));
      for (const [i, o] of second.entries()) expect(BigInt((await stored(`m${i}`))!.lease).toString(16)).toBe(o.leaseId);
    } finally {
      plain.close();
    }
  });

  it('a txn etcd refuses for one gone lease goes again put by put: only that registration fails', async () => {
    const plain = new KeepAliveChannel(client, 4000);
    const writer = new InstanceWriter(client, keys, plain);
    try {
      const grants = await Promise.all([1, 2, 3].map(() => client.leaseClient.leaseGrant({ TTL: 30 })));
      await client.leaseClient.leaseRevoke({ ID: grants[1]!.ID });
      const puts = grants.map((g, i) => writer.puts!.put({ key: Buffer.from(keys.instanceKey({ namespace: 'hb', service: svc, instanceId: `refused-${i}` })), value: Buffer.from('{}'), lease: g.ID }));
      const outs = await Promise.all(puts.map((p) => p.then((o) => o.revision, (e: Error) => e.message)));
      expect(typeof outs[0]).toBe('number');
      expect(outs[1]).toMatch(/lease not found/i);
      expect(writer.puts!.batches).toBe(1);
      expect(typeof outs[2]).toBe('number');
      expect(await stored('refused-1')).toBeUndefined();
      expect(await stored('refused-0')).toBeDefined();
    } finally {
      plain.close();
    }
  });
});

describe('InstanceWriter.heartbeat', () => {
  it('answers found when a re-registration moves the instance to a new lease mid-heartbeat', async () => {
    const plain = new KeepAliveChannel(client, 4000);
    const other = new InstanceWriter(client, keys, plain);
    const first = await other.register(record('a', 'v1'));
    const racing = new KeepAliveAfter(client, async () => {
      await other.register(record('a', 'v2'));
      await leaseGone(first.leaseId);
    });
    const writer = new InstanceWriter(client, keys, racing);
    try {
      const out = await writer.heartbeat({ namespace: 'hb', service: 'company.test.order.order-center.api', instanceId: 'a' });
      expect(out.found).toBe(true);
      if (out.found) {
        expect(out.instance.labels.version).toBe('v2');
        expect(out.instance.leaseId).not.toBe(first.leaseId);
      }
    } finally {
      plain.close();
      racing.close();
    }
  });

  it('rewrites the heartbeat stamp once it is older than the stamp resolution (500 ms), not on every heartbeat', async () => {
    const plain = new KeepAliveChannel(client, 4000);
    const writer = new InstanceWriter(client, keys, plain);
    const id = { namespace: 'hb', service: 'company.test.order.order-center.api', instanceId: 'stamp' };
    try {
      const reg = await writer.register({ ...record('stamp', 'v1'), leaseTtlSeconds: 2 });
      const fresh = await writer.heartbeat(id);
      expect(fresh.found && fresh.instance.revision).toBe(reg.revision);
      await new Promise((r) => setTimeout(r, 1100));
      const due = await writer.heartbeat(id);
      expect(due.found && due.instance.revision).toBeGreaterThan(reg.revision);
      expect(due.found && due.instance.lastHeartbeatAt! - reg.record.lastHeartbeatAt!).toBeGreaterThanOrEqual(1000);
      const stored = JSON.parse((await client.get(keys.instanceKey(id)).string())!) as { lastHeartbeatAt: number };
      expect(due.found && stored.lastHeartbeatAt).toBe(due.found && due.instance.lastHeartbeatAt);
      const again = await writer.heartbeat(id);
      expect(again.found && again.instance.revision).toBe(due.found && due.instance.revision);
    } finally {
      plain.close();
    }
  });

  it('answers not found when a deregistration removes the instance mid-heartbeat', async () => {
    const plain = new KeepAliveChannel(client, 4000);
    const other = new InstanceWriter(client, keys, plain);
    const id = { namespace: 'hb', service: 'company.test.order.order-center.api', instanceId: 'b' };
    const { leaseId } = await other.register(record('b', 'v1'));
    const racing = new KeepAliveAfter(client, async () => {
      await other.deregister(id);
      await leaseGone(leaseId);
    });
    const writer = new InstanceWriter(client, keys, racing);
    try {
      expect((await writer.heartbeat(id)).found).toBe(false);
    } finally {
      plain.close();
      racing.close();
    }
  });

  it('a stale "lease not found" for a live record is asked again, not answered not_found', async () => {
    const plain = new KeepAliveChannel(client, 4000);
    const writer = new InstanceWriter(client, keys, plain);
    const stale = new StaleFirstAnswer(client, 4000);
    const id = { namespace: 'hb', service: 'company.test.order.order-center.api', instanceId: 'stale' };
    try {
      const reg = await writer.register(record('stale', 'v1'));
      const out = await new InstanceWriter(client, keys, stale).heartbeat(id);
      expect(out.found).toBe(true);
      expect(out.found && out.instance.leaseId).toBe(reg.leaseId);
      expect(stale.restarts).toBe(1);
      expect(stale.staleAnswers).toBe(2);
    } finally {
      plain.close();
      stale.close();
    }
  });
});
