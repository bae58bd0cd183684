import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createTestDatabase, migrate } from '@orrery/db';
import { PostgresDriver } from './postgres-driver.ts';
import { STATE_OWNER, type Scope } from './types.ts';

// Two drivers on one database stand for two statesvc replicas: a write through one wakes the
// other's watchers by NOTIFY (the driver itself never polls, so a wake can only come that way).

describe('postgres change feed wake-ups across replicas', () => {
  let tdb: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: PostgresDriver;
  let b: PostgresDriver;
  const S: Scope = { namespace: 'wake', owner: STATE_OWNER, keyspace: 'ks' };

  beforeAll(async () => {
    tdb = await createTestDatabase();
    const ca = connect({ url: tdb.url, max: 3 });
    await migrate(ca);
    a = new PostgresDriver(ca, { statementConnections: 2 });
    b = new PostgresDriver(connect({ url: tdb.url, max: 3 }), { statementConnections: 2 });
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await tdb?.drop();
  });

  it('a write through one driver wakes the other driver\'s watcher of that keyspace only', { timeout: 20_000 }, async () => {
    let otherWakes = 0;
    const stopOther = b.watchChanges({ namespace: 'wake', keyspace: 'elsewhere' }, () => otherWakes++);
    let woke!: () => void;
    const wakes: number[] = [];
    const stop = b.watchChanges(S, () => {
      wakes.push(Date.now());
      woke?.();
    });
    // The LISTEN connection opens with the first watcher: write until a wake arrives.
    const started = Date.now();
    const first = new Promise<void>((r) => (woke = r));
    let writes = 0;
    const writer = (async () => {
      while (wakes.length === 0 && Date.now() - started < 10_000) {
        await a.set(S, `k${writes++}`, '1');
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await first;
    await writer;
    // Every write B heard of is one A made; B's reading sees it.
    const page = await b.changes(S, { since: 0 });
    expect(page.changes.map((c) => c.key)).toEqual(Array.from({ length: writes }, (_, i) => `k${i}`));
    // Once listening, a single write wakes B within moments.
    wakes.length = 0;
    const t0 = Date.now();
    const next = new Promise<void>((r) => (woke = r));
    await a.set(S, 'again', '1');
    await next;
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(otherWakes).toBe(0);
    stop();
    stopOther();
  });
});
