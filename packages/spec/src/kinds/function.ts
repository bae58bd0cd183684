import { z } from 'zod';
import { ConditionSchema, DNS1035_LABEL, DNS1123_LABEL, StatusBaseSchema } from '../meta.ts';
import { kindSchema } from './kind-schema.ts';
import { says } from '../validate/reasons.ts';
import { boundedDuration } from '../validate/rules/duration-rules.ts';
import { withCel } from '../validate/rules/object-rule.ts';
import { FENCING_NEEDS_STICKY, MAX_STICKY_NAME, STATE_NOT_ON_CONTAINER, STICKY_COOKIE_NAME, STICKY_NAME_NOT_BLANK } from '../validate/rules/state-rules.ts';
import { STATE_DRIVERS } from './state-drivers.ts';
import { TriggersSchema, TriggersStatusSchema } from './function-triggers.ts';
import { DomainsSchema, DomainStatusSchema } from './function-domains.ts';
import { BuildStatusSchema, PackageSourceSchema } from './function-package.ts';
import {
  ACTIVATION_SCALE_BOUND,
  BURST_CAPACITY,
  ENV_NAMES_UNIQUE,
  ENV_VALUE_OR_SECRET,
  MAX_ENV_NAME,
  MAX_ENV_VARS,
  SCALE_BOUNDS,
  SOURCE_EXACTLY_ONE,
} from '../validate/rules/template-rules.ts';
import { MAX_TRAFFIC_TARGETS, TAGS_UNIQUE, TRAFFIC_REVISION_CONFLICT, TRAFFIC_REVISION_MISSING, TRAFFIC_SUM } from '../validate/rules/traffic-rules.ts';

export { STATE_DRIVERS, type StateDriverName, isStateDriverName } from './state-drivers.ts';
export * from './function-triggers.ts';
export * from './function-domains.ts';
export * from './function-package.ts';
/** `spec.state.onDelete`: keep the keyspace's data when the Function goes (default), or delete it. */
export const STATE_ON_DELETE = ['retain', 'delete'] as const;
export type StateOnDelete = (typeof STATE_ON_DELETE)[number];

/** Fission RFC-0023 keyspace charset: no ':' (token info-string separator), no '#' (`<keyspace>#meta` row). */
export const KEYSPACE_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const HOUR_MS = 3_600_000;

/** Where the function's code comes from: exactly one of the four. */
export const SourceSchema = withCel(
  z.object({
    inline: z.string().optional(),
    configMapRef: z.object({ name: z.string().min(1), key: z.string().min(1).default('index.mjs') }).optional(),
    url: z.string().optional(),
    /** A folder with its dependencies, built once per archive (docs/packages.md). */
    package: PackageSourceSchema.optional(),
  }),
  [SOURCE_EXACTLY_ONE],
);
export type Source = z.infer<typeof SourceSchema>;

/** Knative's autoscaling knobs, each overriding the platform default when set. */
export const AutoscalingSchema = withCel(
  z.object({
    class: z.enum(['kpa']).default('kpa'),
    metric: z.enum(['concurrency', 'rps']).default('concurrency'),
    /** Soft target per worker (concurrency or requests per second). */
    target: z.number().min(0.01, says('autoscaling_target')).optional(),
    targetUtilizationPercentage: z
      .number()
      .min(1, says('autoscaling_utilization'))
      .max(100, says('autoscaling_utilization'))
      .optional(),
    /** 0 = may scale to zero. */
    minScale: z.number().int().min(0, says('autoscaling_min_scale')).optional(),
    /** 0 = unbounded. */
    maxScale: z.number().int().min(0, says('autoscaling_max_scale')).optional(),
    initialScale: z.number().int().min(0, says('autoscaling_initial_scale')).optional(),
    /** Workers started at least when waking from zero. */
    activationScale: z.number().int().min(1, says('autoscaling_activation_scale')).optional(),
    scaleDownDelay: boundedDuration({ reason: 'autoscaling_scale_down_delay', minMs: 0, maxMs: HOUR_MS, wholeSeconds: true }).optional(),
    /** Stable window. */
    window: boundedDuration({ reason: 'autoscaling_window', minMs: 6000, maxMs: HOUR_MS, wholeSeconds: true }).optional(),
    panicWindowPercentage: z
      .number()
      .min(1, says('autoscaling_panic_window'))
      .max(100, says('autoscaling_panic_window'))
      .optional(),
    panicThresholdPercentage: z
      .number()
      .min(110, says('autoscaling_panic_threshold'))
      .max(1000, says('autoscaling_panic_threshold'))
      .optional(),
    maxScaleUpRate: z.number().gt(1, says('autoscaling_scale_up_rate')).optional(),
    maxScaleDownRate: z.number().gt(1, says('autoscaling_scale_down_rate')).optional(),
    /** >= 0, or -1: the activator always stays in the request path. */
    targetBurstCapacity: withCel(z.number().refine(BURST_CAPACITY.holds, { message: says('autoscaling_burst_capacity') }), [
      BURST_CAPACITY,
    ]).optional(),
  }),
  [SCALE_BOUNDS, ACTIVATION_SCALE_BOUND],
);
export type Autoscaling = z.infer<typeof AutoscalingSchema>;

/** A Secret's name (DNS-1123 subdomain) and one of its keys, as Kubernetes spells them. */
export const SECRET_NAME_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const SECRET_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;

/**
 * Where an env value comes from instead of `value` (Kubernetes' `valueFrom.secretKeyRef`): on
 * Kubernetes a Secret in the Function's namespace, on the local backend the file
 * `<data-dir>/secrets/<namespace>/<name>/<key>` (`orrery secret set`). The value never enters
 * the resource, the audit log or an API answer.
 */
export const EnvSecretKeyRefSchema = z.object({
  name: z.string().max(253, says('env_secret_name')).regex(SECRET_NAME_PATTERN, says('env_secret_name')),
  key: z
    .string()
    .max(253, says('env_secret_key'))
    .regex(SECRET_KEY_PATTERN, says('env_secret_key'))
    .refine((k) => k !== '.' && k !== '..', { message: says('env_secret_key') }),
  /** true: a missing Secret or key leaves the variable unset instead of stopping the worker. */
  optional: z.boolean().optional(),
});
export type EnvSecretKeyRef = z.infer<typeof EnvSecretKeyRefSchema>;

export const EnvVarSchema = withCel(
  z.object({
    name: z.string().max(MAX_ENV_NAME, says('env_name')).regex(/^[-._a-zA-Z][-._a-zA-Z0-9]*$/, says('env_name')),
    /** Plain text, shown to operators and admins (viewers and the audit log see "[redacted]"). Absent with valueFrom. */
    value: z.string().optional(),
    valueFrom: z.object({ secretKeyRef: EnvSecretKeyRefSchema }).optional(),
  }),
  [ENV_VALUE_OR_SECRET],
);
export type EnvVar = z.infer<typeof EnvVarSchema>;

/**
 * `spec.template.onWorkerLoss`: what the router does with a request whose worker died after it
 * went out and before any of the answer came back. Absent means `fail`: no zod default, so a
 * template written before the field existed parses to the same object and snapshots the same
 * Revision (apps/operator revisionToCreate compares templates deep-equal).
 */
export const ON_WORKER_LOSS = ['fail', 'replay'] as const;
export type OnWorkerLoss = (typeof ON_WORKER_LOSS)[number];

export const FunctionTemplateSchema = z.object({
  source: SourceSchema,
  /** Name of an Environment in the same namespace. */
  environment: z.string().min(1).default('nodejs'),
  /** Export of the module that handles requests. */
  entrypoint: z.string().min(1).default('default'),
  env: withCel(z.array(EnvVarSchema).max(MAX_ENV_VARS), [ENV_NAMES_UNIQUE]).default([]),
  /** Hard limit of in-flight requests per worker; 0 = unlimited. */
  containerConcurrency: z
    .number()
    .int()
    .min(0, says('container_concurrency'))
    .max(1000, says('container_concurrency'))
    .default(0),
  timeoutSeconds: z.number().int().min(1, says('timeout_seconds')).max(3600, says('timeout_seconds')).default(300),
  executor: z.enum(['pool', 'deploy', 'container']).default('deploy'),
  autoscaling: AutoscalingSchema.default({ class: 'kpa', metric: 'concurrency' }),
  /** replay: the router sends a request whose worker died to another worker with the same Orrery-Invocation-Id (docs/router.md "Replay after worker loss"). */
  onWorkerLoss: z.enum(ON_WORKER_LOSS).optional(),
});
export type FunctionTemplate = z.infer<typeof FunctionTemplateSchema>;

export const TrafficTargetSchema = withCel(
  z.object({
    revisionName: z.string().max(63, says('traffic_revision_name')).regex(DNS1123_LABEL, says('traffic_revision_name')).optional(),
    latestRevision: z.boolean().optional(),
    percent: z.number().int().min(0, says('traffic_percent')).max(100, says('traffic_percent')).default(0),
    /** Reachable with header `Orrery-Tag: <tag>` whatever its percent. */
    tag: z.string().max(63, says('tag_format')).regex(DNS1035_LABEL, says('tag_format')).optional(),
  }),
  [TRAFFIC_REVISION_CONFLICT, TRAFFIC_REVISION_MISSING],
);
export type TrafficTarget = z.infer<typeof TrafficTargetSchema>;

/** Where the router reads the sticky key: a header, a query parameter, or (beyond the seed) a cookie's value. */
export const STICKY_SOURCES = ['header', 'queryparam', 'cookie'] as const;
export type StickySource = (typeof STICKY_SOURCES)[number];

export const StickySchema = withCel(
  z
    .object({
      source: z.enum(STICKY_SOURCES, { error: says('sticky_source') }),
      name: withCel(
        z.string().min(1, says('sticky_name')).max(MAX_STICKY_NAME).refine(STICKY_NAME_NOT_BLANK.holds, { message: says('sticky_name') }),
        [STICKY_NAME_NOT_BLANK],
      ),
    })
    // In the schema rather than validate(): a routes file and the router's store source parse only the schema.
    .refine(STICKY_COOKIE_NAME.holds, { message: says('sticky_cookie_name'), path: ['name'] }),
  [STICKY_COOKIE_NAME],
);
export type Sticky = z.infer<typeof StickySchema>;

/** Presence of `spec.state` is the opt-in; shared by every revision of the function. */
export const StateConfigSchema = withCel(
  z
    .object({
      /** Default = the function's name; set it so renaming the function does not orphan data. */
      keyspace: z.string().max(63, says('keyspace_too_long')).regex(KEYSPACE_PATTERN, says('keyspace_pattern')).optional(),
      /** Applied to writes without an explicit TTL; absent or "0s" = no expiry. */
      defaultTTL: boundedDuration({ reason: 'ttl_negative', minMs: 0 }).optional(),
      /**
       * How long the outcome of a write carrying `Idempotency-Key` is kept (a retry within it gets
       * the stored answer); absent = statesvc's `--idempotency-retention` (default 24h).
       */
      idempotencyRetention: boundedDuration({ reason: 'idempotency_retention', minMs: 1000, maxMs: 7 * 24 * HOUR_MS, wholeSeconds: true }).optional(),
      /** 0 = platform default (256 KiB). */
      maxValueBytes: z.number().int().min(0, says('quota_negative')).default(0),
      /** 0 = platform default (10000). */
      maxKeys: z.number().int().min(0, says('quota_negative')).default(0),
      /** A driver statesvc offers (validated; v1 statesvc serves every keyspace from its one configured driver). */
      backend: z.enum(STATE_DRIVERS, { error: says('state_backend') }).optional(),
      /**
       * What happens to the keyspace's data when the Function is deleted. Absent = `retain`, unless
       * the deprecated annotation `orrery.dev/keyspace-deletion-policy` says `delete` (effectiveOnDelete).
       */
      onDelete: z.enum(STATE_ON_DELETE, { error: says('state_on_delete') }).optional(),
      sticky: StickySchema.optional(),
      /**
       * Fencing tokens for `ctx.state` (docs/state.md "Fencing"): every worker claims a key before
       * its first write of it, the router marks the request that moved a key (`X-Orrery-Key-Moved`),
       * and a write from a worker that lost the key is refused (409 fenced). Needs `sticky`.
       */
      fencing: z.boolean().optional(),
    })
    .refine(FENCING_NEEDS_STICKY.holds, { message: says('fencing_needs_sticky'), path: ['fencing'] }),
  [FENCING_NEEDS_STICKY],
);
export type StateConfig = z.infer<typeof StateConfigSchema>;

/** Revisions kept besides the routed ones unless a Function says otherwise (Knative's min-non-active-revisions). */
export const DEFAULT_REVISION_GC_KEEP = 20;
/** A revision younger than this is never collected (Knative's retain-since-create-time). */
export const DEFAULT_REVISION_GC_MIN_AGE = '48h';
export const MAX_REVISION_GC_KEEP = 1000;

/**
 * Revision garbage collection (docs/functions.md "Old revisions"): a revision that no traffic
 * target names, that is not the latest created or ready, that is older than `minAge` and not among
 * the newest `keep` of the non-routed ones, is deleted with its workers. Absent fields take the
 * operator's platform-wide `--revision-gc-keep` / `--revision-gc-min-age`.
 */
export const RevisionGcSchema = z.object({
  keep: z.number().int(says('revision_gc_keep')).min(0, says('revision_gc_keep')).max(MAX_REVISION_GC_KEEP, says('revision_gc_keep')).optional(),
  minAge: boundedDuration({ reason: 'revision_gc_min_age', minMs: 0 }).optional(),
});
export type RevisionGc = z.infer<typeof RevisionGcSchema>;

export const FunctionSpecSchema = withCel(
  z.object({
    template: FunctionTemplateSchema,
    /** Empty = 100 % to the latest ready revision. */
    traffic: withCel(z.array(TrafficTargetSchema).max(MAX_TRAFFIC_TARGETS), [TRAFFIC_SUM, TAGS_UNIQUE]).default([]),
    state: StateConfigSchema.optional(),
    revisionGC: RevisionGcSchema.optional(),
    /** Cron schedules and message queues that invoke the Function (docs/triggers.md). */
    triggers: TriggersSchema.optional(),
    /** Host names the router serves the Function on, with TLS (docs/domains.md). */
    domains: DomainsSchema.optional(),
  }),
  [STATE_NOT_ON_CONTAINER],
);
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
  triggers: TriggersStatusSchema.optional(),
  domains: z.array(DomainStatusSchema).optional(),
  /** The build of spec.template.source.package (docs/packages.md). */
  build: BuildStatusSchema.optional(),
});
export type FunctionStatus = z.infer<typeof FunctionStatusSchema>;

export const FunctionSchema = kindSchema('Function', FunctionSpecSchema, FunctionStatusSchema);
export type OrreryFunction = z.infer<typeof FunctionSchema>;
export type OrreryFunctionInput = z.input<typeof FunctionSchema>;
