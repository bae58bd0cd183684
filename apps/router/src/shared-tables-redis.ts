/**
 * `--redis-url`: the endpoint-quarantine and sticky-owner tables are registered with statesync,
 * so every replica honours a quarantine seen by one and teleports count across replicas.
 * Quarantines and lifts are also written through at once (docs/architecture.md "Statesync cycles"), not only each period.
 */
import { Redis } from 'ioredis';
import type { MessageLog } from '@orrery/log';
import { createStateSync } from '@orrery/statesync';
import type { QuarantineTable, SharedTables } from './shared-tables.ts';
import { EndpointQuarantineTable } from './tables/endpoint-quarantine-table.ts';
import { StickyOwnerTable } from './tables/sticky-owner-table.ts';

/** The router's tables by their StateSync name (`spec.syncables`). */
export const ROUTER_TABLES = ['endpoint-quarantine', 'sticky-owners'] as const;
export type RouterTable = (typeof ROUTER_TABLES)[number];

export interface SharedTablesOptions {
  redisUrl: string;
  keyPrefix: string;
  syncPeriodMs: number | undefined;
  /** TTL of every record this replica writes (statesync default 2 min). */
  recordTtlMs?: number;
  /** Tables shared through Redis; the others stay local to this replica. Default: all. */
  syncables?: readonly RouterTable[];
  /** TLS without certificate verification (test clusters only; warned at start). */
  tlsInsecureSkipVerify?: boolean;
  /** `--sticky-owner-entries`: the LRU bound of the sticky owner table (default DEFAULT_STICKY_OWNER_ENTRIES). */
  stickyOwnerEntries?: number;
  log: MessageLog;
}

export async function connectSharedTables(o: SharedTablesOptions): Promise<SharedTables> {
  const insecure = o.tlsInsecureSkipVerify && o.redisUrl.startsWith('rediss://');
  if (insecure) o.log('WARNING: Redis TLS certificate verification is off (insecureSkipVerify): use only on test clusters', 'warn');
  const redis = new Redis(o.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, ...(insecure ? { tls: { rejectUnauthorized: false } } : {}) });
  redis.on('error', (err: Error) => o.log(`redis: ${err.message}`, 'warn'));
  await redis.connect();
  const logger = {
    info: (m: string) => o.log(m),
    warn: (m: string, f?: Record<string, unknown>) => o.log(`${m} ${f ? JSON.stringify(f) : ''}`, 'warn'),
    error: (m: string, f?: Record<string, unknown>) => o.log(`${m} ${f ? JSON.stringify(f) : ''}`, 'error'),
  };
  const sync = createStateSync(redis, { keyPrefix: o.keyPrefix, syncPeriodMs: o.syncPeriodMs, recordTtlMs: o.recordTtlMs, logger });
  const quarantineTable = new EndpointQuarantineTable();
  const owners = new StickyOwnerTable({ maxEntries: o.stickyOwnerEntries });
  const shared = new Set<RouterTable>(o.syncables ?? ROUTER_TABLES);
  if (shared.has('endpoint-quarantine')) sync.register(quarantineTable);
  if (shared.has('sticky-owners')) sync.register(owners);
  sync.start();

  const writeThrough = (address: string): void => {
    if (!shared.has('endpoint-quarantine')) return;
    const bytes = quarantineTable.snapshot().get(address);
    if (bytes) sync.put(quarantineTable.namespace, address, bytes).catch((err: unknown) => o.log(`quarantine write-through: ${String(err)}`, 'warn'));
  };
  const quarantine: QuarantineTable = {
    quarantine(address, untilMs) {
      quarantineTable.quarantine(address, untilMs);
      writeThrough(address);
    },
    lift(address) {
      quarantineTable.lift(address);
      if (shared.has('endpoint-quarantine')) sync.delete(quarantineTable.namespace, address).catch((err: unknown) => o.log(`quarantine lift write-through: ${String(err)}`, 'warn'));
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
