/**
 * The flags both backends take, and their one validation: `--backend local` and
 * `--backend kubernetes` spread SHARED_FLAGS into their own tables and read these settings with
 * readSharedFlags. Pure: a bad flag throws a UsageError naming it.
 */
import { parseDurationMs } from '@orrery/spec';
import { AUTOSCALER_FLAGS, kpaDefaultsFromFlags } from '../autoscaler/autoscaler-flags.ts';
import type { KpaDefaults } from '../autoscaler/kpa-settings.ts';
import { REVISION_GC_FLAGS, revisionGcFromFlags } from '../function/revision-gc-flags.ts';
import type { RevisionGcSettings } from '../function/revision-collection.ts';
import { TRIGGER_FLAGS, type TriggerSettings, triggerSettingsFromFlags } from '../trigger/trigger-flags.ts';
import { QUEUE_FLAGS, type QueueSettings, queueSettingsFromFlags } from '../trigger/queue/queue-flags.ts';
import { flagCheck, UsageError } from './command-line.ts';

export const SHARED_FLAGS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '0' },
  'database-url': { type: 'string' },
  'store-token-file': { type: 'string' },
  'registry-url': { type: 'string' },
  'state-url': { type: 'string' },
  'master-key-file': { type: 'string' },
  'registry-master-key-file': { type: 'string' },
  'previous-registry-master-key-file': { type: 'string' },
  'registry-write-tokens-file': { type: 'string' },
  'require-registry-write-tokens': { type: 'boolean', default: false },
  'router-url': { type: 'string' },
  'pool-idle-timeout': { type: 'string', default: '120s' },
  'admin-token-file': { type: 'string' },
  'users-file': { type: 'string' },
  'trusted-proxies': { type: 'string' },
  'router-admin-urls': { type: 'string' },
  'rollup-interval': { type: 'string', default: '10s' },
  'log-level': { type: 'string' },
  'otlp-endpoint': { type: 'string' },
  ...AUTOSCALER_FLAGS,
  ...REVISION_GC_FLAGS,
  ...TRIGGER_FLAGS,
  ...QUEUE_FLAGS,
  help: { type: 'boolean' },
} as const;

type Optional = 'database-url' | 'store-token-file' | 'registry-url' | 'state-url' | 'master-key-file' | 'registry-master-key-file' | 'previous-registry-master-key-file' | 'registry-write-tokens-file' | 'router-url' | 'admin-token-file' | 'users-file' | 'trusted-proxies' | 'router-admin-urls' | 'log-level' | 'otlp-endpoint';

/** The parsed values of SHARED_FLAGS (the defaulted ones always present). */
export type SharedFlagValues = { host: string; port: string; 'pool-idle-timeout': string; 'rollup-interval': string; 'require-registry-write-tokens': boolean } & Partial<Record<Optional | keyof typeof AUTOSCALER_FLAGS | keyof typeof REVISION_GC_FLAGS | keyof typeof TRIGGER_FLAGS | keyof typeof QUEUE_FLAGS, string>>;

export interface SharedSettings {
  host: string;
  port: number;
  /** --database-url, else $DATABASE_URL. */
  databaseUrl: string | undefined;
  storeTokenFile: string | undefined;
  /** Where function workers register (http(s) URLs). */
  registryUrls: string[];
  stateUrl: string | undefined;
  routerUrl: string | undefined;
  /** statesvc's master key: state tokens, and with stateUrl keyspace cleanup. */
  masterKeyFile: string | undefined;
  /** Registry write credentials: workers' registration key (and the previous one during a rotation), the write tokens. */
  registryAuth: { masterKeyFile: string | undefined; previousMasterKeyFile: string | undefined; writeTokensFile: string | undefined; requireWriteTokens: boolean };
  poolIdleTimeoutMs: number;
  adminTokenFile: string | undefined;
  usersFile: string | undefined;
  trustedProxies: string | undefined;
  routerAdminUrls: string[];
  rollupIntervalMs: number;
  kpa: KpaDefaults;
  revisionGc: RevisionGcSettings;
  /** Cron and queue triggers (--trigger-url). */
  triggers: TriggerSettings;
  /** The NATS JetStream broker of queue triggers (--queue-url, --queue-credentials-file); undefined = none. */
  queue: QueueSettings | undefined;
  /** For observabilityFromFlags (which prints its own usage error). */
  observability: { 'log-level'?: string; 'otlp-endpoint'?: string };
}

const list = (text: string | undefined): string[] => (text ?? '').split(',').filter(Boolean);

/**
 * Validates the shared flags once for both backends. `newRegistryKeyElsewhere`: the backend has
 * another source of the registration key than --registry-master-key-file (Kubernetes:
 * --registry-master-key-secret), which a previous key may rotate from too.
 */
export function readSharedFlags(values: SharedFlagValues, environment: NodeJS.ProcessEnv, newRegistryKeyElsewhere = false): SharedSettings {
  const registryUrls = list(values['registry-url']);
  for (const u of registryUrls) {
    if (!URL.canParse(u) || !/^https?:$/.test(new URL(u).protocol)) throw new UsageError(`--registry-url ${JSON.stringify(u)} is not an http(s) URL`);
  }
  if (values['previous-registry-master-key-file'] && !values['registry-master-key-file'] && !newRegistryKeyElsewhere) {
    throw new UsageError('--previous-registry-master-key-file needs --registry-master-key-file (the new key)');
  }
  const poolIdleTimeoutMs = parseDurationMs(values['pool-idle-timeout']);
  if (!Number.isFinite(poolIdleTimeoutMs) || poolIdleTimeoutMs < 1000) throw new UsageError('--pool-idle-timeout must be a duration of at least 1s, like "120s"');
  const rollupIntervalMs = parseDurationMs(values['rollup-interval']);
  if (!Number.isFinite(rollupIntervalMs) || rollupIntervalMs < 1000) throw new UsageError('--rollup-interval must be a duration of at least 1s, like "10s"');
  return {
    host: values.host,
    port: Number(values.port),
    databaseUrl: values['database-url'] ?? environment.DATABASE_URL,
    storeTokenFile: values['store-token-file'],
    registryUrls,
    stateUrl: values['state-url'],
    routerUrl: values['router-url'],
    masterKeyFile: values['master-key-file'],
    registryAuth: {
      masterKeyFile: values['registry-master-key-file'],
      previousMasterKeyFile: values['previous-registry-master-key-file'],
      writeTokensFile: values['registry-write-tokens-file'],
      requireWriteTokens: values['require-registry-write-tokens'],
    },
    poolIdleTimeoutMs,
    adminTokenFile: values['admin-token-file'],
    usersFile: values['users-file'],
    trustedProxies: values['trusted-proxies'],
    routerAdminUrls: list(values['router-admin-urls']),
    rollupIntervalMs,
    kpa: flagCheck(() => kpaDefaultsFromFlags(values)),
    revisionGc: flagCheck(() => revisionGcFromFlags(values)),
    triggers: triggerSettingsFromFlags(values),
    queue: queueSettingsFromFlags(values),
    observability: { 'log-level': values['log-level'], 'otlp-endpoint': values['otlp-endpoint'] },
  };
}
