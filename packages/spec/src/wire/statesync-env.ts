/**
 * The environment a router reads its state-sync settings from when no `--redis-*` flag is given:
 * the operator's StateSync reconciler on Kubernetes writes these into the router Deployment
 * (ConfigMap + Secret), the router reads them at start. One list for both sides.
 */
export const STATESYNC_ENV = {
  url: 'ORRERY_REDIS_URL',
  keyPrefix: 'ORRERY_REDIS_KEY_PREFIX',
  syncPeriodMs: 'ORRERY_SYNC_PERIOD_MS',
  recordTtlMs: 'ORRERY_STATESYNC_RECORD_TTL_MS',
  syncables: 'ORRERY_STATESYNC_SYNCABLES',
  tls: 'ORRERY_REDIS_TLS',
  tlsInsecure: 'ORRERY_REDIS_TLS_INSECURE_SKIP_VERIFY',
} as const;
