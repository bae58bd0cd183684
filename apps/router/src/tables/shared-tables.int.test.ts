import { randomUUID } from 'node:crypto';
import { createStateSync, type StateSync } from '@orrery/statesync';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { EndpointQuarantineTable } from './endpoint-quarantine-table.ts';
import { StickyOwnerTable } from './sticky-owner-table.ts';

const redis = new Redis(process.env.ORRERY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
const prefix = `orrery-test-router-tables-${randomUUID().slice(0, 8)}`;
const managers: StateSync[] = [];

async function until(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(keys);
  await redis.quit();
});

describe('router tables over statesync (real Redis, two replicas)', () => {
  it('quarantines, lifts and sticky owners reach the other replica', { timeout: 60_000 }, async () => {
    const replicas = [0, 1].map(() => {
      const quarantine = new EndpointQuarantineTable();
      const sticky = new StickyOwnerTable();
      const sync = createStateSync(redis, { keyPrefix: prefix, syncPeriodMs: 200, env: {} });
      sync.register(quarantine);
      sync.register(sticky);
      sync.start();
      managers.push(sync);
      return { quarantine, sticky, sync };
    });
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];

    a.quarantine.quarantine('10.0.0.7:8080', Date.now() + 60_000);
    expect(a.sticky.record('default/echo', 42, '10.0.0.7:8080', Date.now())).toEqual({});
    await until(() => b.quarantine.isQuarantined('10.0.0.7:8080'), 'the quarantine on B');
    await until(() => b.sticky.owner('default/echo', 42)?.address === '10.0.0.7:8080', 'the sticky owner on B');

    // B admits the bucket elsewhere: a teleport on B; A merges B's newer owner without counting one.
    await new Promise((r) => setTimeout(r, 5));
    expect(b.sticky.record('default/echo', 42, '10.0.0.8:8080', Date.now())).toEqual({ teleportedFrom: '10.0.0.7:8080' });
    await until(() => a.sticky.owner('default/echo', 42)?.address === '10.0.0.8:8080', 'the new owner on A');

    b.quarantine.lift('10.0.0.7:8080');
    await until(() => !a.quarantine.isQuarantined('10.0.0.7:8080'), 'the lift on A');

    // Write-through: visible to the other replica on its next pull without waiting for A's push.
    a.quarantine.quarantine('10.0.0.9:8080', Date.now() + 60_000);
    await a.sync.put(a.quarantine.namespace, '10.0.0.9:8080', a.quarantine.encoded('10.0.0.9:8080')!);
    await until(() => b.quarantine.isQuarantined('10.0.0.9:8080'), 'the written-through quarantine on B');
    expect(a.sync.status().syncables.map((s) => s.syncable)).toEqual(['router-quarantine', 'router-sticky-owners']);
  });
});
