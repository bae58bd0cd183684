/**
 * The sync settings a StateSync renders for its target's replicas, as data, as router flags and
 * environment (the Redis URL), and as the settings file the local backend writes. Pure. Locally only `redis.url` can be used (the
 * local backend has no secret store); `urlSecretRef` is for the Kubernetes backend.
 */
import { createHash } from 'node:crypto';
import { parseDurationMs, STATESYNC_ENV, type StateSync } from '@orrery/spec';

export interface SyncSettings {
  redisUrl: string;
  keyPrefix: string;
  syncPeriodMs: number;
  recordTtlMs: number;
  syncables: string[];
  tls: boolean;
}

/** How a router replica is (re)started with the settings: flags, and the environment for what is secret. */
export interface RouterLaunch {
  args: string[];
  env: Record<string, string>;
}

export type RenderResult =
  | { ok: true; settings: SyncSettings; router: RouterLaunch; fingerprint: string }
  | { ok: false; reason: string; message: string };

/**
 * Tables the router registers with statesync today, by StateSync name → the router's statesync
 * namespace. Others in `syncables` are reported, not shared.
 */
export const ROUTER_SYNCABLES: Record<string, string> = {
  'endpoint-quarantine': 'router-quarantine',
  'sticky-owners': 'router-sticky-owners',
};

/** The StateSync name for a router statesync namespace (unknown ones pass through). */
export function syncableName(namespace: string): string {
  return Object.entries(ROUTER_SYNCABLES).find(([, ns]) => ns === namespace)?.[0] ?? namespace;
}

export function renderSettings(spec: StateSync['spec']): RenderResult {
  if (spec.target.component !== 'router') {
    return { ok: false, reason: 'UnsupportedTarget', message: `target.component ${JSON.stringify(spec.target.component)}: the local backend syncs router replicas only` };
  }
  const url = spec.redis.url;
  if (!url) {
    return {
      ok: false,
      reason: 'RedisUrlMissing',
      message: spec.redis.urlSecretRef ? 'redis.urlSecretRef needs the Kubernetes backend; on the local backend set redis.url' : 'set redis.url (or redis.urlSecretRef on Kubernetes)',
    };
  }
  if (!/^rediss?:\/\//.test(url)) return { ok: false, reason: 'RedisUrlInvalid', message: 'redis.url must start with redis:// or rediss://' };
  const tls = spec.redis.tls?.enabled ?? url.startsWith('rediss://');
  const redisUrl = tls && url.startsWith('redis://') ? `rediss://${url.slice('redis://'.length)}` : url;
  const settings: SyncSettings = {
    redisUrl,
    keyPrefix: spec.keyPrefix,
    syncPeriodMs: parseDurationMs(spec.syncPeriod),
    recordTtlMs: parseDurationMs(spec.recordTTL),
    syncables: [...spec.syncables],
    tls,
  };
  // The Redis URL may hold a password: it goes in the environment (ORRERY_REDIS_URL, read by the
  // router like the flag), never on a command line every local user can read in `ps`.
  const args = [
    '--redis-key-prefix', settings.keyPrefix,
    '--sync-period-ms', String(settings.syncPeriodMs),
    '--record-ttl-ms', String(settings.recordTtlMs),
    '--syncables', settings.syncables.join(','),
    ...(spec.redis.tls?.insecureSkipVerify ? ['--redis-tls-insecure-skip-verify'] : []),
  ];
  const fingerprint = createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
  return { ok: true, settings, router: { args, env: { [STATESYNC_ENV.url]: settings.redisUrl } }, fingerprint };
}

/** Syncables asked for that the router does not register (shown in a condition message). */
export function unsupportedSyncables(settings: SyncSettings): string[] {
  return settings.syncables.filter((s) => !(s in ROUTER_SYNCABLES));
}
