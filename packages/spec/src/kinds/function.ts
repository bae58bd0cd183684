import { z } from 'zod';
import { DurationSchema } from '../duration.ts';
import { ConditionSchema, GROUP_VERSION, ObjectMetaSchema, StatusBaseSchema } from '../meta.ts';

/** Where the function's code comes from: exactly one of the three. */
export const SourceSchema = z.object({
  inline: z.string().optional(),
  configMapRef: z.object({ name: z.string().min(1), key: z.string().min(1).default('index.mjs') }).optional(),
  url: z.string().optional(),
});
export type Source = z.infer<typeof SourceSchema>;

/** Knative's autoscaling knobs, each overriding the platform default when set. */
export const AutoscalingSchema = z.object({
  class: z.enum(['kpa']).default('kpa'),
  metric: z.enum(['concurrency', 'rps']).default('concurrency'),
  /** Soft target per worker (concurrency or requests per second). */
  target: z.number().optional(),
  targetUtilizationPercentage: z.number().optional(),
  minScale: z.number().int().optional(),
  /** 0 = unbounded. */
  maxScale: z.number().int().optional(),
  initialScale: z.number().int().optional(),
  activationScale: z.number().int().optional(),
  scaleDownDelay: DurationSchema.optional(),
  /** Stable window. */
  window: DurationSchema.optional(),
  panicWindowPercentage: z.number().optional(),
  panicThresholdPercentage: z.number().optional(),
  maxScaleUpRate: z.number().optional(),
  maxScaleDownRate: z.number().optional(),
  targetBurstCapacity: z.number().optional(),
});
export type Autoscaling = z.infer<typeof AutoscalingSchema>;

export const EnvVarSchema = z.object({ name: z.string().min(1), value: z.string().default('') });

export const FunctionTemplateSchema = z.object({
  source: SourceSchema,
  /** Name of an Environment in the same namespace. */
  environment: z.string().min(1).default('nodejs'),
  /** Export of the module that handles requests. */
  entrypoint: z.string().min(1).default('default'),
  env: z.array(EnvVarSchema).default([]),
  /** Hard limit of in-flight requests per worker; 0 = unlimited. */
  containerConcurrency: z.number().int().default(0),
  timeoutSeconds: z.number().int().default(300),
  executor: z.enum(['pool', 'deploy', 'container']).default('deploy'),
  autoscaling: AutoscalingSchema.default({ class: 'kpa', metric: 'concurrency' }),
});
export type FunctionTemplate = z.infer<typeof FunctionTemplateSchema>;

export const TrafficTargetSchema = z.object({
  revisionName: z.string().optional(),
  latestRevision: z.boolean().optional(),
  percent: z.number().int().default(0),
  tag: z.string().optional(),
});
export type TrafficTarget = z.infer<typeof TrafficTargetSchema>;

export const StickySchema = z.object({
  source: z.enum(['header', 'queryparam']),
  name: z.string(),
});
export type Sticky = z.infer<typeof StickySchema>;

/** Presence of `spec.state` is the opt-in; shared by every revision of the function. */
export const StateConfigSchema = z.object({
  keyspace: z.string().optional(),
  /** Applied to writes without an explicit TTL; absent or "0s" = no expiry. */
  defaultTTL: DurationSchema.optional(),
  /** 0 = platform default (256 KiB). */
  maxValueBytes: z.number().int().default(0),
  /** 0 = platform default (10000). */
  maxKeys: z.number().int().default(0),
  backend: z.string().optional(),
  sticky: StickySchema.optional(),
});
export type StateConfig = z.infer<typeof StateConfigSchema>;

export const FunctionSpecSchema = z.object({
  template: FunctionTemplateSchema,
  /** Empty = 100 % to the latest ready revision. */
  traffic: z.array(TrafficTargetSchema).default([]),
  state: StateConfigSchema.optional(),
});
export type FunctionSpec = z.infer<typeof FunctionSpecSchema>;

export const RevisionScaleSchema = z.object({
  revisionName: z.string(),
  ready: z.number().int().nonnegative().default(0),
  desired: z.number().int().nonnegative().default(0),
  actual: z.number().int().nonnegative().default(0),
});

export const FunctionStatusSchema = StatusBaseSchema.extend({
  url: z.string().optional(),
  latestCreatedRevision: z.string().optional(),
  latestReadyRevision: z.string().optional(),
  traffic: z
    .array(z.object({ revisionName: z.string(), percent: z.number().int(), tag: z.string().optional(), latestRevision: z.boolean().optional() }))
    .optional(),
  revisions: z.array(RevisionScaleSchema).optional(),
  conditions: z.array(ConditionSchema).optional(),
});
export type FunctionStatus = z.infer<typeof FunctionStatusSchema>;

export const FunctionSchema = z.object({
  apiVersion: z.literal(GROUP_VERSION),
  kind: z.literal('Function'),
  metadata: ObjectMetaSchema,
  spec: FunctionSpecSchema,
  status: FunctionStatusSchema.optional(),
});
export type OrreryFunction = z.infer<typeof FunctionSchema>;
export type OrreryFunctionInput = z.input<typeof FunctionSchema>;
