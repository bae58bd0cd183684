import { z } from 'zod';
import { SecretKeyRefSchema, StatusBaseSchema } from '../meta.ts';
import { kindSchema } from './kind-schema.ts';
import { says } from '../validate/reasons.ts';
import { boundedDuration } from '../validate/rules/duration-rules.ts';
import { withCel } from '../validate/rules/object-rule.ts';
import {
  DEFAULT_RECORD_TTL,
  DEFAULT_SYNC_PERIOD,
  MAX_SYNCABLE_NAME,
  MAX_SYNCABLES,
  RECORD_TTL_LONGER,
  REDIS_EXACTLY_ONE,
  SYNCABLES_UNIQUE,
} from '../validate/rules/state-sync-rules.ts';

export const StateSyncSpecSchema = withCel(
  z.object({
    target: z.object({
      component: z.string().min(1).default('router'),
      selector: z.object({ matchLabels: z.record(z.string(), z.string()).optional() }).optional(),
    }),
    redis: withCel(
      z.object({
        urlSecretRef: SecretKeyRefSchema.optional(),
        /** Plain URL for local use; on Kubernetes prefer urlSecretRef. */
        url: z.string().optional(),
        tls: z.object({ enabled: z.boolean().default(false), insecureSkipVerify: z.boolean().default(false) }).optional(),
      }),
      [REDIS_EXACTLY_ONE],
    ),
    /** Redis keys are `<keyPrefix>:{<syncable>}:e:<id>`; braces would break the hash tag. */
    keyPrefix: z
      .string()
      .regex(/^[^\s{}]+$/, says('statesync_key_prefix'))
      .default('orrery'),
    syncPeriod: boundedDuration({ reason: 'statesync_sync_period', minMs: 0, exclusiveMin: true }).default(DEFAULT_SYNC_PERIOD),
    /** Per-record SETEX TTL: a record not rewritten within it disappears from Redis. */
    recordTTL: boundedDuration({ reason: 'statesync_record_ttl', minMs: 0, exclusiveMin: true }).default(DEFAULT_RECORD_TTL),
    /** Which tables to share, e.g. `endpoint-quarantine`, `sticky-owners`. */
    syncables: withCel(z.array(z.string().min(1).max(MAX_SYNCABLE_NAME)).max(MAX_SYNCABLES), [SYNCABLES_UNIQUE]).default([
      'endpoint-quarantine',
      'sticky-owners',
    ]),
  }),
  [RECORD_TTL_LONGER],
);
export type StateSyncSpec = z.infer<typeof StateSyncSpecSchema>;

export const StateSyncReplicaStatusSchema = z.object({
  replica: z.string(),
  syncable: z.string().optional(),
  lastSuccessfulCycle: z.string().optional(),
  entitiesPushed: z.number().int().nonnegative().default(0),
  entitiesPulled: z.number().int().nonnegative().default(0),
  lastError: z.string().optional(),
  backoffSeconds: z.number().nonnegative().default(0),
});

export const StateSyncStatusSchema = StatusBaseSchema.extend({
  replicas: z.array(StateSyncReplicaStatusSchema).optional(),
});

export const StateSyncSchema = kindSchema('StateSync', StateSyncSpecSchema, StateSyncStatusSchema);
export type StateSync = z.infer<typeof StateSyncSchema>;
export type StateSyncInput = z.input<typeof StateSyncSchema>;
