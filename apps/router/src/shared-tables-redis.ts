/**
 * `--redis-url`: the endpoint-quarantine and sticky-owner tables are registered with statesync,
 * so every replica honours a quarantine seen by one and teleports count across replicas.
 * Quarantines and lifts are also written through at once (DESIGN §5), not only each period.
 */
import { Redis } from 'ioredis';
import { createStateSync } from '@orrery/statesync';
import type { SharedTables } from './router-server.ts';
import type { QuarantineTable } from './shared-tables.ts';
import { EndpointQuarantineTable } from './tables/endpoint-quarantine-table.ts';
import { StickyOwnerTable } from './tables/sticky-owner-table.ts';

export interface SharedTablesOptions {
  redisUrl: string;
  keyPrefix: string;
  syncPeriodMs: number | undefined;
  log: (message: string) => void;
}

export async function connectSharedTables(o: SharedTablesOptions): Promise<SharedTables> {
  const redis = new Redis(o.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  redis.on('error', (err: Error) => o.log(`redis: ${err.message}`));
  await redis.connect();
  const logger = {
    info: (m: string) => o.log(m),
    warn: (m: string, f?: Record<string, unknown>) => o.log(`${m} ${f ? JSON.stringify(f) : ''}`),
    error: (m: string, f?: Record<string, unknown>) => o.log(`${m} ${f ? JSON.stringify(f) : ''}`),
  };
  const sync = createStateSync(redis, { keyPrefix: o.keyPrefix, syncPeriodMs: o.syncPeriodMs, logger });
  const quarantineTable = new EndpointQuarantineTable();
  const owners = new StickyOwnerTable();
  sync.register(quarantineTable);
  sync.register(owners);
  sync.start();

  const writeThrough = (address: string): void => {
    const bytes = quarantineTable.snapshot().get(address);
    if (bytes) sync.put(quarantineTable.namespace, address, bytes).catch((err: unknown) => o.log(`quarantine write-through: ${String(err)}`));
  };
  const quarantine: QuarantineTable = {
    quarantine(address, untilMs) {
      quarantineTable.quarantine(address, untilMs);
      writeThrough(address);
    },
    lift(address) {
      quarantineTable.lift(address);
      sync.delete(quarantineTable.namespace, address).catch((err: unknown) => o.log(`quarantine lift write-through: ${String(err)}`));
    },
    isQuarantined: (address, nowMs) => quarantineTable.isQuarantined(address, nowMs),
    entries: () => quarantineTable.entries(),
  };
  return {
    quarantine,
    owners,
    status: () => sync.status(),
    async stop() {
      await sync.stop();
      redis.disconnect();
    },
  };
}
