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
    expect(a.sticky.record('default/echo', 0, 42, '10.0.0.7:8080', Date.now())).toBeUndefined();
    await until(() => b.quarantine.isQuarantined('10.0.0.7:8080'), 'the quarantine on B');
    await until(() => b.sticky.owner('default/echo', 0, 42)?.address === '10.0.0.7:8080', 'the sticky owner on B');

    // B admits the key elsewhere: a teleport on B; A merges B's newer owner without counting one.
    await new Promise((r) => setTimeout(r, 5));
    expect(b.sticky.record('default/echo', 0, 42, '10.0.0.8:8080', Date.now())).toBe('10.0.0.7:8080');
    await until(() => a.sticky.owner('default/echo', 0, 42)?.address === '10.0.0.8:8080', 'the new owner on A');
    expect(a.sticky.record('default/echo', 0, 42, '10.0.0.8:8080', Date.now())).toBeUndefined();

    b.quarantine.lift('10.0.0.7:8080');
    await until(() => !a.quarantine.isQuarantined('10.0.0.7:8080'), 'the lift on A');

    // Write-through: visible to the other replica on its next pull without waiting for A's push.
    a.quarantine.quarantine('10.0.0.9:8080', Date.now() + 60_000);
    await a.sync.put(a.quarantine.namespace, '10.0.0.9:8080', a.quarantine.encoded('10.0.0.9:8080')!);
    await until(() => b.quarantine.isQuarantined('10.0.0.9:8080'), 'the written-through quarantine on B');
    expect(a.sync.status().syncables.map((s) => s.syncable)).toEqual(['router-quarantine', 'router-sticky-owners']);
  });
});

describe('sticky owners of 2 000 keys over statesync (real Redis, two replicas)', () => {
  it('agree: a key moved on A counts once there and never again on B', { timeout: 60_000 }, async () => {
    const replicas = [0, 1].map(() => {
      const sticky = new StickyOwnerTable();
      const sync = createStateSync(redis, { keyPrefix: `${prefix}-many`, syncPeriodMs: 200, env: {} });
      sync.register(sticky);
      managers.push(sync);
      return { sticky, sync };
    });
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const workers = ['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080', '10.0.0.4:8080'];
    const keys = Array.from({ length: 2_000 }, (_, k) => k);
    const ownerOf = (k: number, ws: string[]): string => ws[(k * 2654435761) % ws.length]!; // any stable assignment
    const serve = (r: typeof a, ws: string[]): number => keys.filter((k) => r.sticky.record('default/cart', k, ~k, ownerOf(k, ws), Date.now()) !== undefined).length;

    // Both replicas serve every key where it lives; then the tables meet in Redis.
    expect(serve(a, workers)).toBe(0);
    expect(serve(b, workers)).toBe(0);
    await Promise.all([a.sync.syncOnce(), b.sync.syncOnce()]);
    await a.sync.syncOnce();

    // One worker leaves; A serves every key first.
    const left = workers.filter((w) => w !== workers[0]);
    const owned = keys.filter((k) => ownerOf(k, workers) === workers[0]);
    const movedKeys = keys.filter((k) => ownerOf(k, workers) !== ownerOf(k, left));
    expect(owned.length).toBeGreaterThan(400);
    await new Promise((r) => setTimeout(r, 5)); // the moves are written after everything B knows
    expect(serve(a, left)).toBe(movedKeys.length);

    // A pushes, B pulls: B learns the moves and counts none of them; a second pass on A moves nothing.
    await a.sync.syncOnce();
    await b.sync.syncOnce();
    expect(serve(b, left)).toBe(0);
    expect(serve(a, left)).toBe(0);
    expect(b.sticky.owner('default/cart', owned[0]!, ~owned[0]!)?.address).toBe(ownerOf(owned[0]!, left));
  });
});
