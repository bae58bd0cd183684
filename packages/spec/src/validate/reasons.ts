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
  trigger_name_duplicate: 'each trigger name may appear once among the Function\'s triggers of one kind: the name keys the trigger\'s status entry, its Events and (queue) its consumer on the broker',
  // cron triggers (docs/triggers.md "Cron")
  cron_schedule:
    'schedule must be five cron fields (minute hour day-of-month month day-of-week, e.g. "*/15 * * * *" or "0 3 * * mon-fri"), a nickname (@hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually), or six fields with a leading seconds field listing at most six explicit seconds (e.g. "0,30 * * * * *"); at most 100 characters',
  cron_time_zone: 'timeZone must be an IANA time zone name such as "Europe/Paris", "America/New_York" or "UTC" (leave it out for UTC)',
  cron_path: 'path must start with "/" and may carry a query ("/report?period=day"): at most 1024 characters, no whitespace and no "#"',
  cron_body: 'body must be at most 4096 characters: a trigger\'s call carries a small fixed payload; larger input belongs in state or a queue',
  cron_body_method: 'a GET call has no body: use POST, PUT, PATCH or DELETE, or remove body',
  cron_headers: 'a cron trigger may set at most 16 headers',
  cron_header_name: 'a header name must be an HTTP token of at most 64 characters: letters, digits, the backtick and !#$%&\'*+-.^_|~',
  cron_header_value: 'a header value must be at most 1024 characters without CR, LF or NUL (and is no place for a secret: the spec is readable by everyone who can read the Function)',
  cron_header_reserved:
    'this header is set by Orrery or the HTTP layer and a trigger may not send it: Orrery-* and X-Orrery-* (Orrery-Trigger, Orrery-Scheduled-Time), Host, Content-Length, Transfer-Encoding, Connection, Keep-Alive, Upgrade, TE, Trailer, Expect, Proxy-*, Forwarded, X-Forwarded-*, X-Real-IP',
  cron_header_duplicate: 'each header name may appear once (names are compared without regard to letter case)',
  cron_starting_deadline: 'startingDeadlineSeconds must be a whole number of seconds from 1 to 31622400 (366 days), or absent for no deadline',
  // queue triggers (docs/triggers.md "Queue")
  queue_stream: 'stream must name a JetStream stream: letters, digits, "_" and "-", at most 64 characters',
  queue_subject:
    'subject must be a NATS subject filter of at most 255 characters: tokens of letters, digits, "_", "-" and ":" separated by ".", a token "*" for any one token and a last token ">" for the rest, e.g. "orders.*" or "events.>"',
  queue_dead_letter_subject: 'deadLetterSubject must be a NATS subject without wildcards of at most 255 characters: tokens of letters, digits, "_", "-" and ":" separated by ".", e.g. "orders.dead"',
  queue_dead_letter_loop: 'deadLetterSubject must not match subject: a dead-lettered message would be read again by the same trigger; pick a subject outside the filter, e.g. "<stream>.dead"',
  queue_max_in_flight: 'maxInFlight must be a whole number from 1 to 1000: how many messages of this trigger the Function works on at once (default 1)',
  queue_max_deliver: 'maxDeliver must be a whole number from 1 to 100: deliveries of one message, the first included, before it is dead-lettered (default 5)',
  queue_ack_wait: 'ackWait must be a duration from 1s to 1h, e.g. "30s": how long the broker waits for an outcome before delivering a message again (default 30s)',
  queue_backoff: 'backoff must list 1 to 16 durations from 0s to 1h, e.g. ["1s", "10s", "1m"]: the delay before the next delivery after each failure, the last one repeating',
  queue_content_type: 'contentType must be a media type such as "application/json" or "text/plain; charset=utf-8"',
  queue_path: 'path must be a URL path starting with "/" of at most 1024 characters: segments of letters, digits, ".", "_", "~" and "-" that do not start with "." (so no "." or ".." segment), no query',
  queue_method: 'method must be "POST" or "PUT": the message is the request body',
  domain_host:
    'a domain host must be a fully qualified, lower-case host name such as "shop.example.com": DNS labels of letters, digits and "-" joined by dots, the last starting with a letter, at most 253 characters; no wildcard ("*."), port, trailing dot or IP address',
  domain_duplicate: 'each host may appear once in spec.domains',
  domain_tls_secret: 'tls.secretName must name a Secret in the Function\'s namespace: a DNS-1123 subdomain (lower-case letters, digits, "-" and ".") of at most 253 characters',
  domain_redirect_needs_tls: 'redirectToHTTPS needs tls.secretName: without a certificate there is no HTTPS to redirect to',
  revision_gc_keep: 'revisionGC.keep must be a whole number from 0 to 1000: how many non-routed revisions are kept besides the routed ones (default 20)',
  revision_gc_min_age: 'revisionGC.minAge must be a duration >= 0, e.g. "48h": a revision younger than this is never collected (default 48h)',
  state_on_delete: 'state.onDelete must be "retain" (the keyspace\'s data outlives the Function) or "delete" (deleted with the Function)',
  // template
  source_exactly_one: 'set exactly one of source.inline, source.configMapRef, source.url and source.package',
  package_sha256: 'package.sha256 must be the SHA-256 of the archive: 64 lower-case hex digits (orrery deploy --code DIR computes it; or sha256sum package.tgz)',
  package_url: 'package.url must be an http(s) URL of at most 2048 characters, without spaces',
  package_main: 'package.main must be a relative path inside the package such as "index.mjs" or "src/handler.py": segments of letters, digits, ".", "_" and "-" that do not start with ".", joined by "/"',
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
