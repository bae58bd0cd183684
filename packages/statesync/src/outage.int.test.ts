import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Registers } from './testing/registers.ts';
import { freePort } from './testing/free-port.ts';
import { waitFor } from './testing/redis.ts';
import { createStateSync, type StateSync } from './state-sync.ts';

const REDIS_SERVER = '/usr/bin/redis-server';

function startRedis(port: number): ChildProcess {
  return spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
}

async function waitForPing(port: number): Promise<void> {
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await waitFor(async () => {
      try {
        if (probe.status !== 'ready') await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        probe.disconnect();
        return false;
      }
    }, 15_000, `redis-server on port ${port}`);
  } finally {
    probe.disconnect();
  }
}

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const children: ChildProcess[] = [];
const clients: Redis[] = [];
const managers: StateSync[] = [];
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  for (const c of clients) c.disconnect();
  for (const c of children) await kill(c);
});

describe('Redis outage', () => {
  it('no crash, backoff grows to the cap, and both replicas converge after a restart', { timeout: 90_000 }, async () => {
    const port = await freePort();
    let server = startRedis(port);
    children.push(server);
    await waitForPing(port);

    const period = 200;
    const cap = 1_000;
    const replicas = ['a', 'b'].map(() => {
      const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => 100 });
      client.on('error', () => undefined); // the outage is expected; the manager reports it in status()
      clients.push(client);
      const table = new Registers('outage');
      const sync = createStateSync(client, {
        keyPrefix: 'orrery-outage-test',
        syncPeriodMs: period,
        maxBackoffMs: cap,
        opTimeoutMs: 500,
        env: {},
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      });
      sync.register(table);
      sync.start();
      managers.push(sync);
      return { table, sync };
    });
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];

    a.table.set('before', 'a1');
    await waitFor(() => b.table.get('before') === 'a1', 15_000, 'convergence before the outage');

    await kill(server);
    a.table.set('during-a', 'a2');
    b.table.set('during-b', 'b2');
    await waitFor(
      () => a.sync.status().backoffMs === cap && b.sync.status().backoffMs === cap,
      30_000,
      'backoff to reach the cap',
    );
    for (const r of replicas) {
      const st = r.sync.status();
      expect(st.started).toBe(true);
      expect(st.stopped).toBe(false);
      expect(st.cycles.error).toBeGreaterThanOrEqual(3);
      expect(st.syncables[0]?.lastError).toBeTruthy();
      expect(st.syncables[0]?.backoffSeconds).toBe(cap / 1000);
    }
    const errorsAtCap = a.sync.status().cycles.error;
    await new Promise((r) => setTimeout(r, 1_500));
    // Capped: at most a couple more cycles in 1.5 s (uncapped doubling would have stopped trying).
    expect(a.sync.status().cycles.error).toBeGreaterThan(errorsAtCap);
    expect(a.sync.status().backoffMs).toBe(cap);

    server = startRedis(port);
    children.push(server);
    await waitForPing(port);
    await waitFor(
      () => b.table.get('during-a') === 'a2' && a.table.get('during-b') === 'b2',
      30_000,
      'convergence after the restart',
    );
    await waitFor(() => a.sync.status().backoffMs === period && b.sync.status().backoffMs === period, 15_000, 'backoff reset');
    expect(a.table.get('before')).toBe('a1');
    expect(b.table.get('before')).toBe('a1');
  });
});
