import { z } from 'zod';
import type { HttpApi, HttpParam, HttpRoute } from './http-route.ts';
import { REGISTRY_ENVELOPE_DESCRIPTION, REGISTRY_ERROR_CODES, RegistryErrorEnvelopeSchema, registryOkEnvelope, type RegistryErrorCode } from './registry-envelope.ts';

/**
 * The registry's public HTTP API (StellMap data plane on `http_addr`): instances, their
 * requests and answers, watch events, Prometheus SD and the route table. orrery-registry, the
 * admin API's instance browser and docs/http-api.md read this file.
 */

const revision = z.number().int().nonnegative();

export const RegistryEndpointSchema = z.object({
  name: z.string().describe('Unique per instance; defaults to the protocol.'),
  protocol: z.string().describe('`http`, `grpc`, `tcp`, …'),
  host: z.string().describe('IP address or DNS name.'),
  port: z.number().int().min(1).max(65535),
  path: z.string().optional().describe('Starts with `/` (e.g. a metrics path).'),
  weight: z.number().int().min(0).max(10_000).describe('Default 100.'),
});
export type RegistryEndpoint = z.infer<typeof RegistryEndpointSchema>;

const segments = {
  organization: z.string(),
  businessDomain: z.string(),
  capabilityDomain: z.string(),
  application: z.string(),
  role: z.string(),
};

/** What the registry stores in etcd for one instance. */
export const RegistryInstanceRecordSchema = z.object({
  namespace: z.string().describe('Lowercase DNS label.'),
  service: z.string().describe('`organization.businessDomain.capabilityDomain.application.role`.'),
  ...segments,
  instanceId: z.string().describe('Letters, digits and `. _ : @ -`; no `/`.'),
  zone: z.string().describe('Empty when not given.'),
  labels: z.record(z.string(), z.string()).describe('Low-cardinality; what selectors match.'),
  metadata: z.record(z.string(), z.string()).describe('Free text, at most 4 KiB per value.'),
  endpoints: z.array(RegistryEndpointSchema),
  leaseTtlSeconds: z.number().int().positive(),
  lastHeartbeatAt: z.number().optional().describe('ms since the epoch; set at registration, refreshed by heartbeats once older than TTL/2.'),
});
export type RegistryInstanceRecord = z.infer<typeof RegistryInstanceRecordSchema>;

/** An instance as answered: the record plus where it sits in etcd's history. */
export const RegistryInstanceSchema = RegistryInstanceRecordSchema.extend({
  revision: revision.describe('etcd mod revision of the record.'),
  createRevision: revision.describe('etcd create revision (stable across updates).'),
  leaseId: z.string().describe('etcd lease id in hex.'),
});
export type RegistryInstance = z.infer<typeof RegistryInstanceSchema>;

/** register answers the record as written, which has no create revision yet in hand. */
export const RegistryRegisteredInstanceSchema = RegistryInstanceSchema.omit({ createRevision: true });
export type RegistryRegisteredInstance = z.infer<typeof RegistryRegisteredInstanceSchema>;

const optionalSegments = Object.fromEntries(Object.entries(segments).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof segments]: z.ZodOptional<z.ZodString>;
};

export const RegistryIdentityRequestSchema = z.object({
  namespace: z.string().describe('Lowercase DNS label, e.g. `prod`.'),
  service: z.string().optional().describe('The full five-segment name; or send all five segment fields (or both, consistently).'),
  ...optionalSegments,
  instanceId: z.string(),
});
export type RegistryIdentityRequest = z.infer<typeof RegistryIdentityRequestSchema>;

const leaseTtlSeconds = z.number().int().min(0).max(7 * 24 * 3600).optional().describe('Absent or 0 = 30.');

export const RegistryEndpointRequestSchema = z.object({
  protocol: z.string().describe('Lowercase, e.g. `http`, `grpc`, `tcp`.'),
  name: z.string().optional().describe('Defaults to the protocol; unique per instance.'),
  host: z.string(),
  port: z.number().int().min(1).max(65535),
  path: z.string().optional().describe('Starts with `/`.'),
  weight: z.number().int().min(0).max(10_000).optional().describe('Default 100.'),
});

export const RegistryRegisterRequestSchema = RegistryIdentityRequestSchema.extend({
  zone: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  metadata: z.record(z.string(), z.string()).optional().describe('At most 4 KiB per value.'),
  endpoints: z.array(RegistryEndpointRequestSchema).max(32).optional(),
  leaseTtlSeconds,
});
export type RegistryRegisterRequest = z.infer<typeof RegistryRegisterRequestSchema>;

export const RegistryHeartbeatRequestSchema = RegistryIdentityRequestSchema.extend({
  leaseTtlSeconds: leaseTtlSeconds.describe('A different TTL moves the instance to a new lease (watchers see an upsert).'),
});
export type RegistryHeartbeatRequest = z.infer<typeof RegistryHeartbeatRequestSchema>;

export const RegistryRegisterDataSchema = z.object({
  revision: revision.describe('etcd revision of the write.'),
  instance: RegistryRegisteredInstanceSchema,
});
export type RegistryRegisterData = z.infer<typeof RegistryRegisterDataSchema>;

export const RegistryDeregisterDataSchema = z.object({
  revision: revision.describe('etcd revision of the delete.'),
  instance: z.object({ namespace: z.string(), service: z.string(), instanceId: z.string() }),
});
export type RegistryDeregisterData = z.infer<typeof RegistryDeregisterDataSchema>;

export const RegistryHeartbeatDataSchema = z.object({
  revision: revision.describe('mod revision of the record (unchanged by a pure keep-alive).'),
  leaseTtlSeconds: z.number().int().positive(),
  remainingTtlSeconds: z.number().describe("Seconds left on the lease after this keep-alive."),
  ttlChanged: z.boolean().describe('True when the heartbeat moved the instance to a lease with a new TTL.'),
});
export type RegistryHeartbeatData = z.infer<typeof RegistryHeartbeatDataSchema>;

export const RegistryInstancesDataSchema = z.object({
  revision: revision.describe('The etcd revision the answer is linearizable at.'),
  instances: z.array(RegistryInstanceSchema).describe('Sorted by service, then instanceId.'),
});
export type RegistryInstancesData = z.infer<typeof RegistryInstancesDataSchema>;

const eventRevision = revision.describe('etcd mod revision of the change; also the SSE `id`.');
export const RegistryWatchSnapshotSchema = z.object({ type: z.literal('snapshot'), revision: eventRevision, instances: z.array(RegistryInstanceSchema) });
export const RegistryWatchUpsertSchema = z.object({ type: z.literal('upsert'), revision: eventRevision, instance: RegistryInstanceSchema });
export const RegistryWatchDeleteSchema = z.object({
  type: z.literal('delete'),
  revision: eventRevision,
  instance: RegistryInstanceSchema.describe('The last known record (also when the instance only left the filter).'),
});
export const RegistryWatchEventSchema = z.discriminatedUnion('type', [RegistryWatchSnapshotSchema, RegistryWatchUpsertSchema, RegistryWatchDeleteSchema]);
export type RegistryWatchEvent = z.infer<typeof RegistryWatchEventSchema>;

export const RegistryTargetGroupSchema = z.object({
  targets: z.array(z.string()).describe('`host:port`.'),
  labels: z
    .record(z.string(), z.string())
    .describe('namespace, service, instance_id, region, zone, cluster_id, target_kind (`service_instance` / `registry_node`), `__scheme__`, `__metrics_path__`.'),
});
export type RegistryTargetGroup = z.infer<typeof RegistryTargetGroupSchema>;
export const RegistryTargetGroupsSchema = z.array(RegistryTargetGroupSchema);

export const RegistryHealthDataSchema = z.object({
  status: z.literal('alive'),
  leaderId: z.string().describe("etcd's current leader id in hex; empty when none answered."),
  leaderAddr: z.string().describe("The leader's client URL; empty when unknown."),
  indexRevision: revision.describe('Highest etcd revision applied to the in-memory index.'),
});
export type RegistryHealthData = z.infer<typeof RegistryHealthDataSchema>;

export const RegistryReadyDataSchema = z.object({
  status: z.literal('ready'),
  leaderId: z.string(),
  indexRevision: revision,
});
export type RegistryReadyData = z.infer<typeof RegistryReadyDataSchema>;

/** Query parameters shared by instances, watch, the replication watch and (mostly) SD. */
const FILTER: HttpParam[] = [
  { name: 'namespace', required: true, description: 'The instances\' namespace.' },
  { name: 'service', repeatable: true, description: 'An exact five-segment service.' },
  { name: 'servicePrefix', repeatable: true, description: 'Whole leading segments (`company.trade` matches `company.trade.order.x.api`). Services and prefixes are OR-ed.' },
  // One parameter each, so clients generated from docs/openapi/registry.json can send them.
  ...Object.keys(segments).map((name, i) => ({
    name,
    description: i === 0 ? 'Service segment 1. The five segment fields (organization … role): all five = one service, a leading run = a prefix, a gap = 400.' : `Service segment ${i + 1}; see \`organization\`.`,
  })),
  { name: 'zone', description: 'Exact zone.' },
  { name: 'endpoint', description: 'Instances with an endpoint of this name or protocol.' },
  { name: 'selector', repeatable: true, description: '`key`, `!key`, `key=value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`; commas and repeats are AND.' },
  { name: 'label', repeatable: true, description: 'Legacy `key=value`.' },
  { name: 'includeExpired', description: '`true`: also instances whose lease TTL passed without renewal, which answers skip by default (`false`).' },
];
const WATCH: HttpParam[] = [
  ...FILTER,
  { name: 'sinceRevision', description: 'Resume after this position: the SSE `id` of the last event processed (replay, no snapshot; several changes can share a revision, and the id of all but the last of them is the revision before); `Last-Event-ID` works too.' },
  { name: 'includeSnapshot', description: '`true` (default): a snapshot first on a first connect, and a fresh one when `sinceRevision` is gone; `false`: no snapshot on a first connect (only the changes after it), 410 `revision_expired` when `sinceRevision` is gone.' },
];
const JSON_BODY: HttpParam = { name: 'Content-Type', description: '`application/json`; bodies are at most 64 KiB.' };
const bearer = (what: string): HttpParam => ({ name: 'Authorization', required: true, description: `\`Bearer <${what}>\`.` });
const WRITE_ERRORS: RegistryErrorCode[] = ['bad_request', 'credential_required', 'credential_rejected', 'payload_too_large', 'method_not_allowed', 'not_leader', 'propose_failed'];
const READ_ERRORS: RegistryErrorCode[] = ['bad_request', 'method_not_allowed', 'not_leader', 'read_failed'];
const WATCH_ERRORS: RegistryErrorCode[] = [...READ_ERRORS, 'revision_expired', 'too_many_watches', 'watch_capacity_reached'];
/** register, heartbeat and deregister: see registry-credentials.ts. */
const WRITE_AUTH = 'registration credential under `orrery.functions.`; write token elsewhere when write tokens are on';
const WRITE_CREDENTIAL: HttpParam = {
  name: 'Authorization',
  description:
    '`Bearer <credential>`: the revision\'s registration credential for services under `orrery.functions.` (always required); a write token covering the namespace and service for other services when write tokens are on (configured or required); otherwise optional, but a credential that is sent must be valid.',
};
/** The three writes: a JSON POST carrying the write credential. */
const writeRoute = (path: string, { purpose, ...rest }: Omit<HttpRoute, 'method' | 'path' | 'auth' | 'headers'>): HttpRoute => ({
  method: 'POST',
  path,
  purpose,
  auth: WRITE_AUTH,
  headers: [WRITE_CREDENTIAL, JSON_BODY],
  ...rest,
});

export const REGISTRY_HTTP_API: HttpApi = {
  id: 'registry',
  title: 'Registry public API (`http_addr`)',
  intro: 'The StellMap HTTP API of `orrery-registry`: workers register with a lease; routers, Prometheus and users discover them.',
  guide: 'registry.md',
  errorBody: RegistryErrorEnvelopeSchema,
  errorCodes: REGISTRY_ERROR_CODES,
  envelope: { wrap: registryOkEnvelope, description: REGISTRY_ENVELOPE_DESCRIPTION },
  routes: [
    writeRoute('/api/v1/registry/register', {
      purpose: 'Grant a lease with the TTL and put the record on it; re-registering moves it to a new lease.',
      body: RegistryRegisterRequestSchema,
      responses: { 200: { description: 'Registered.', schema: RegistryRegisterDataSchema } },
      errors: WRITE_ERRORS,
    }),
    writeRoute('/api/v1/registry/heartbeat', {
      purpose: "Keep the instance's lease alive (linearizable read, then a keep-alive).",
      body: RegistryHeartbeatRequestSchema,
      responses: { 200: { description: 'Renewed.', schema: RegistryHeartbeatDataSchema } },
      errors: [...WRITE_ERRORS, 'not_found', 'read_failed'],
    }),
    writeRoute('/api/v1/registry/deregister', {
      purpose: 'Delete the instance, then revoke its lease.',
      body: RegistryIdentityRequestSchema,
      responses: { 200: { description: 'Deleted.', schema: RegistryDeregisterDataSchema } },
      errors: [...WRITE_ERRORS, 'not_found'],
    }),
    {
      method: 'GET',
      path: '/api/v1/registry/instances',
      purpose: 'Linearizable query.',
      auth: 'none',
      query: [...FILTER, { name: 'limit', description: 'At most this many instances.' }],
      responses: { 200: { description: 'The matching instances.', schema: RegistryInstancesDataSchema } },
      errors: READ_ERRORS,
    },
    {
      method: 'GET',
      path: '/api/v1/registry/watch',
      purpose: 'Server-sent events: a snapshot (unless resuming), then upserts and deletes; `: keep-alive` every 15 s. Streams are capped per client address and per replica (429 / 503 with `Retry-After`).',
      auth: 'none',
      query: WATCH,
      headers: [{ name: 'Last-Event-ID', description: 'Same as `sinceRevision`.' }],
      responses: { 200: { description: 'SSE frames `event: <type>`, `id: <revision>`, `data: <event JSON>`.', schema: RegistryWatchEventSchema, contentType: 'text/event-stream' } },
      errors: WATCH_ERRORS,
    },
    {
      method: 'GET',
      path: '/internal/v1/replication/watch',
      purpose: 'The same stream for replication.',
      auth: 'replication token',
      query: WATCH,
      headers: [bearer('replication_token')],
      responses: { 200: { description: 'As `/api/v1/registry/watch`.', schema: RegistryWatchEventSchema, contentType: 'text/event-stream' } },
      errors: [...WATCH_ERRORS, 'unauthorized', 'forbidden'],
    },
    {
      method: 'GET',
      path: '/internal/v1/prometheus/sd',
      purpose: 'Prometheus HTTP service discovery: one target group per matching endpoint.',
      auth: 'Prometheus SD token',
      headers: [bearer('prometheus_sd_token')],
      query: [
        { name: 'namespace', description: 'Optional here: absent = every namespace.' },
        ...FILTER.filter((p) => p.name !== 'namespace' && p.name !== 'endpoint'),
        { name: 'endpoint', description: 'Endpoint name or protocol to list (default `metrics`).' },
        { name: 'includeSelf', description: "`true` adds the registry's own `/metrics` (`target_kind: registry_node`)." },
        { name: 'scope', description: '`local` (default): this region; `merged`: also the instances replicated from the regions in `[replication] targets_file`, labelled with their region and cluster.' },
      ],
      responses: { 200: { description: 'Target groups (no envelope).', schema: RegistryTargetGroupsSchema, bare: true } },
      errors: [...READ_ERRORS, 'unauthorized', 'forbidden'],
    },
    {
      method: 'GET',
      path: '/healthz',
      purpose: "The process is up, with etcd's current leader.",
      auth: 'none',
      responses: { 200: { description: 'Alive.', schema: RegistryHealthDataSchema } },
      errors: ['method_not_allowed'],
    },
    {
      method: 'GET',
      path: '/readyz',
      purpose: 'The index is loaded and etcd has a leader.',
      auth: 'none',
      responses: { 200: { description: 'Ready.', schema: RegistryReadyDataSchema } },
      errors: ['method_not_allowed', 'not_ready'],
    },
    {
      method: 'GET',
      path: '/metrics',
      purpose: 'Prometheus metrics (`orrery_registry_*`).',
      auth: 'none',
      responses: { 200: { description: 'Prometheus text format.', contentType: 'text/plain' } },
      errors: ['method_not_allowed'],
    },
  ],
  schemas: {
    RegistryErrorEnvelope: RegistryErrorEnvelopeSchema,
    RegistryRegisterRequest: RegistryRegisterRequestSchema,
    RegistryEndpointRequest: RegistryEndpointRequestSchema,
    RegistryHeartbeatRequest: RegistryHeartbeatRequestSchema,
    RegistryIdentityRequest: RegistryIdentityRequestSchema,
    RegistryRegisterData: RegistryRegisterDataSchema,
    RegistryRegisteredInstance: RegistryRegisteredInstanceSchema,
    RegistryHeartbeatData: RegistryHeartbeatDataSchema,
    RegistryDeregisterData: RegistryDeregisterDataSchema,
    RegistryInstancesData: RegistryInstancesDataSchema,
    RegistryInstance: RegistryInstanceSchema,
    RegistryEndpoint: RegistryEndpointSchema,
    RegistryWatchEvent: RegistryWatchEventSchema,
    RegistryWatchSnapshot: RegistryWatchSnapshotSchema,
    RegistryWatchUpsert: RegistryWatchUpsertSchema,
    RegistryWatchDelete: RegistryWatchDeleteSchema,
    RegistryTargetGroups: RegistryTargetGroupsSchema,
    RegistryTargetGroup: RegistryTargetGroupSchema,
    RegistryHealthData: RegistryHealthDataSchema,
    RegistryReadyData: RegistryReadyDataSchema,
  },
};
