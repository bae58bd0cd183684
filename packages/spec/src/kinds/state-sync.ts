import { z } from 'zod';
import { boundedDuration } from '../duration.ts';
import { GROUP_VERSION, ObjectMetaSchema, SecretKeyRefSchema, StatusBaseSchema } from '../meta.ts';
import { says } from '../validate/reasons.ts';

export const StateSyncSpecSchema = z.object({
  target: z.object({
    component: z.string().min(1).default('router'),
    selector: z.object({ matchLabels: z.record(z.string(), z.string()).optional() }).optional(),
  }),
  redis: z.object({
    urlSecretRef: SecretKeyRefSchema.optional(),
    /** Plain URL for local use; on Kubernetes prefer urlSecretRef. */
    url: z.string().optional(),
    tls: z.object({ enabled: z.boolean().default(false), insecureSkipVerify: z.boolean().default(false) }).optional(),
  }),
  /** Redis keys are `<keyPrefix>:{<syncable>}:e:<id>`; braces would break the hash tag. */
  keyPrefix: z
    .string()
    .regex(/^[^\s{}]+$/, says('statesync_key_prefix'))
    .default('orrery'),
  syncPeriod: boundedDuration({ reason: 'statesync_sync_period', minMs: 0, exclusiveMin: true }).default('10s'),
  /** Per-record SETEX TTL: a record not rewritten within it disappears from Redis. */
  recordTTL: boundedDuration({ reason: 'statesync_record_ttl', minMs: 0, exclusiveMin: true }).default('2m'),
  /** Which tables to share, e.g. `endpoint-quarantine`, `sticky-owners`. */
  syncables: z.array(z.string().min(1)).default(['endpoint-quarantine', 'sticky-owners']),
});
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

export const StateSyncSchema = z.object({
  apiVersion: z.literal(GROUP_VERSION),
  kind: z.literal('StateSync'),
  metadata: ObjectMetaSchema,
  spec: StateSyncSpecSchema,
  status: StateSyncStatusSchema.optional(),
});
export type StateSync = z.infer<typeof StateSyncSchema>;
export type StateSyncInput = z.input<typeof StateSyncSchema>;
