import { STATE_DRIVERS } from '../kinds/state-drivers.ts';

/**
 * The catalog of validation reasons: a stable machine code → what to do about it.
 * Codes never change meaning once shipped (the webhook, the CLI, the API and the console
 * all key on them); messages may be reworded.
 */
export const REASONS = {
  // envelope
  not_object: 'a resource must be a mapping with apiVersion, kind, metadata and spec',
  api_version: 'set apiVersion to "orrery.dev/v1alpha1"',
  unknown_kind: 'kind must be one of Function, Revision, Environment, RegistryCluster, StateSync',
  unknown_field: 'this field is not part of the kind; remove it or fix its spelling (Kubernetes would silently prune it)',
  // generic shape problems reported by the schema
  required: 'this field is required',
  type: 'this field has the wrong type',
  enum: 'use one of the listed values',
  format: 'this value does not have the expected format',
  min: 'this value is too small',
  max: 'this value is too large',
  invalid: 'this value is invalid',
  // server-side apply on Kubernetes (not a rule of the object itself)
  field_manager_conflict: 'another field manager (kubectl, a GitOps controller) owns this field: change it there, or apply with force to take it over',
  duration_format: 'write a duration such as "500ms", "30s", "2m" or "1h30m" (units ms, s, m, h)',
  // metadata
  name_format:
    'metadata.name must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit',
  name_too_long: 'metadata.name must be at most 63 characters',
  // state (Fission RFC-0023)
  keyspace_pattern:
    'keyspace must match ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$ (lower-case letters, digits and "-"); ":" is impossible because it separates the fields of the token derivation info string (<keyVersion>:statestore:<namespace>:<keyspace>) and "#" is impossible because <keyspace>#meta is the reserved quota accounting row',
  keyspace_too_long: 'keyspace must be at most 63 characters',
  quota_negative: 'quotas must be >= 0 (0 means the platform default: 256 KiB per value, 10000 keys)',
  ttl_negative: 'defaultTTL must be >= 0 ("0s" or absent means keys do not expire unless a write asks)',
  idempotency_retention: 'idempotencyRetention must be a whole number of seconds from 1s to 168h (7 days), e.g. "24h"; leave it out for statesvc\'s default (24h)',
  sticky_source: 'sticky.source must be "header", "queryparam" or "cookie"',
  sticky_name: 'sticky.name must name the header, query parameter or cookie that carries the routing key, e.g. "X-Session-Id"',
  sticky_cookie_name:
    'with sticky.source "cookie", sticky.name must be a cookie name (an RFC 6265 token): letters, digits and !#$%&\'*+-.^_`|~, without spaces, "=", ";", ",", quotes or other separators, e.g. "session"',
  fencing_needs_sticky:
    'state.fencing needs state.sticky: fencing keeps one worker writing each key, and only a sticky key sends a key\'s requests to one worker; add state.sticky or remove fencing',
  state_executor_container:
    'keyed state is not available with executor "container": there is no fetcher to deliver the scoped state token; use executor "pool" or "deploy", or remove spec.state',
  state_environment_infinite:
    'keyed state is not available on an Environment with allowedFunctionsPerContainer "infinite": one shared worker cannot keep per-function state tokens apart; use an Environment with "single" or remove spec.state',
  state_keyspace_taken:
    'a keyspace belongs to one Function (state is never shared between functions, and both would get the same token): set another spec.state.keyspace, or remove the other Function\'s spec.state first',
  state_backend: `state.backend must name a driver statesvc offers: ${STATE_DRIVERS.map((d) => `"${d}"`).join(' or ')} (or leave it out: statesvc serves every keyspace with its configured driver)`,
  trigger_name: 'a trigger name must be a DNS-1123 label (lower-case letters, digits and "-", at most 63 characters), unique among the Function\'s triggers',
  revision_gc_keep: 'revisionGC.keep must be a whole number from 0 to 1000: how many non-routed revisions are kept besides the routed ones (default 20)',
  revision_gc_min_age: 'revisionGC.minAge must be a duration >= 0, e.g. "48h": a revision younger than this is never collected (default 48h)',
  state_on_delete: 'state.onDelete must be "retain" (the keyspace\'s data outlives the Function) or "delete" (deleted with the Function)',
  // template
  source_exactly_one: 'set exactly one of source.inline, source.configMapRef and source.url',
  container_concurrency: 'containerConcurrency must be between 0 (unlimited) and 1000',
  timeout_seconds: 'timeoutSeconds must be between 1 and 3600',
  env_name: 'env names must consist of letters, digits, "_", "-" or "." and must not start with a digit',
  env_duplicate: 'each env name may appear only once',
  env_value_or_secret: 'give an env entry either a value or valueFrom.secretKeyRef, not both (a secret belongs in a Secret, never in value)',
  env_secret_name: 'valueFrom.secretKeyRef.name must name a Secret: a DNS-1123 subdomain (lower-case letters, digits, "-" and ".") of at most 253 characters',
  env_secret_key: 'valueFrom.secretKeyRef.key must be a Secret key: letters, digits, "-", "_" and "." (not "." or ".."), at most 253 characters',
  // traffic (Knative)
  traffic_percent: 'percent must be an integer between 0 and 100',
  traffic_sum: 'traffic percents must add up to exactly 100',
  traffic_revision_conflict: 'a target with latestRevision: true must not also name a revisionName; drop one of them',
  traffic_revision_missing: 'set revisionName, or latestRevision: true (a target with latestRevision false or absent needs a revisionName)',
  traffic_revision_name: 'revisionName must be a DNS-1123 name such as "<function>-00001"',
  traffic_revision_foreign: 'revisionName must name a revision of this function: "<function>-NNNNN"',
  tag_format: 'tag must be a DNS-1035 label (lower-case letter first, then letters, digits or "-", at most 63 characters)',
  tag_duplicate: 'tags must be unique within spec.traffic',
  // autoscaling (Knative KPA bounds)
  autoscaling_target: 'target must be >= 0.01',
  autoscaling_utilization: 'targetUtilizationPercentage must be between 1 and 100',
  autoscaling_min_scale: 'minScale must be >= 0 (0 allows scale to zero)',
  autoscaling_max_scale: 'maxScale must be >= 0 (0 means unbounded)',
  autoscaling_scale_bounds: 'minScale must not exceed maxScale (unless maxScale is 0 = unbounded)',
  autoscaling_initial_scale: 'initialScale must be >= 0',
  autoscaling_activation_scale: 'activationScale must be >= 1 and must not exceed a bounded maxScale',
  autoscaling_window: 'window (the stable window) must be between 6s and 1h in whole seconds',
  autoscaling_panic_window: 'panicWindowPercentage must be between 1 and 100',
  autoscaling_panic_threshold: 'panicThresholdPercentage must be between 110 and 1000',
  autoscaling_scale_up_rate: 'maxScaleUpRate must be greater than 1',
  autoscaling_scale_down_rate: 'maxScaleDownRate must be greater than 1',
  autoscaling_burst_capacity: 'targetBurstCapacity must be >= 0, or -1 (the activator always stays in the path)',
  autoscaling_scale_down_delay: 'scaleDownDelay must be between 0s and 1h in whole seconds',
  // revision
  revision_name: 'a Revision is named "<spec.function>-NNNNN" (five or more digits)',
  revision_label: 'label orrery.dev/function must equal spec.function',
  function_name_too_long:
    'a Function name must be at most 57 characters, so that its revision names (<name>-00001) stay valid 63-character names',
  // environment
  pool_size: 'poolSize must be >= 0',
  // registry cluster
  replicas_min: 'replicas must be at least 1',
  replicas_odd: 'replicas must be odd (1, 3, 5, …) so a Raft majority is well defined and an even member adds no fault tolerance',
  positive_duration: 'this duration must be greater than 0',
  // state sync
  statesync_sync_period: 'syncPeriod must be greater than 0',
  statesync_record_ttl: 'recordTTL must be greater than 0',
  statesync_record_ttl_short: 'recordTTL must be longer than syncPeriod, or records expire between two sync cycles',
  statesync_key_prefix: 'keyPrefix must be non-empty and must not contain whitespace, "{" or "}" (braces form the Redis Cluster hash tag)',
  statesync_redis: 'set exactly one of redis.url and redis.urlSecretRef',
  statesync_syncable_duplicate: 'each syncable may be listed once',
} as const;

export type Reason = keyof typeof REASONS;

/**
 * A zod message that carries its reason code: `[reason] message`. Zod issues only carry
 * strings, so the code travels in the message and `readReason` splits it off again.
 */
export function says(reason: Reason, detail?: string): string {
  return `[${reason}] ${detail ?? REASONS[reason]}`;
}

const CODED = /^\[([a-z0-9_]+)\] ([\s\S]*)$/;

export function readReason(message: string): { reason: Reason; message: string } | undefined {
  const m = CODED.exec(message);
  if (!m || !(m[1]! in REASONS)) return undefined;
  return { reason: m[1] as Reason, message: m[2]! };
}
