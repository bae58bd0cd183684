import { z } from 'zod';
import type { HttpApi, HttpMethod, HttpParam, HttpRoute } from './http-route.ts';
import { RegistryAdminStatusSchema, RegistryMemberViewSchema } from './registry-admin-status.ts';
import { REGISTRY_ENVELOPE_DESCRIPTION, REGISTRY_ERROR_CODES, RegistryErrorEnvelopeSchema, registryOkEnvelope, type RegistryErrorCode } from './registry-envelope.ts';

/**
 * The registry's admin API (`admin_addr`, loopback + admin token): etcd membership and status.
 * orrery-registry, `orrery registry … --admin-url` and docs/http-api.md read this file.
 */

const memberId = z.string().describe('etcd member id in hex, as `/admin/v1/status` shows it.');

export const RegistryReplicationStatusSchema = z.object({
  clusterId: z.string(),
  leader: z.object({ id: z.string(), name: z.string() }).nullable(),
  members: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      isLearner: z.boolean(),
      isLeader: z.boolean(),
      reachable: z.boolean(),
      raftIndex: z.number().optional(),
      raftAppliedIndex: z.number().optional(),
      lag: z.number().nullable().describe("Entries behind the leader's raft index; null when unknown."),
    }),
  ),
  registry: z
    .object({
      indexRevision: z.number().describe('Highest etcd revision applied to this replica\'s index.'),
      instances: z.number().describe('Instances in the index.'),
      watchStreams: z.number().describe('Open watch streams.'),
      barrierReads: z.number().describe('Linearizable barrier reads sent to etcd so far.'),
    })
    .describe("This registry replica's own view."),
  targets: z
    .array(
      z.object({
        region: z.string().describe('The other region, as `[replication] targets_file` names it.'),
        url: z.string().describe("That region's registry (its public listener)."),
        namespace: z.string().describe('One stream per target and namespace.'),
        connected: z.boolean().describe('The stream is open now.'),
        synced: z.boolean().describe('A snapshot has been applied since the stream (re)started from scratch.'),
        revision: z.number().describe("The other region's last revision applied here (0 before the first snapshot)."),
        instances: z.number().describe("The other region's instances held for this namespace (kept while disconnected)."),
        lastError: z.string().optional().describe('Why the stream is not connected (absent while connected).'),
        since: z.string().describe('RFC 3339: since when `connected` has its current value (start-up when never connected).'),
      }),
    )
    .describe('Cross-region replication streams (`[replication] targets_file`); empty when this region follows none.'),
});
export type RegistryReplicationStatus = z.infer<typeof RegistryReplicationStatusSchema>;

export const RegistryAddLearnerRequestSchema = z.object({
  name: z.string().describe("The new member's etcd `--name`, e.g. `etcd-3`."),
  peerURL: z.string().describe("The new member's peer URL, e.g. `http://10.0.0.14:2380`."),
});
export type RegistryAddLearnerRequest = z.infer<typeof RegistryAddLearnerRequestSchema>;

export const RegistryAddLearnerDataSchema = z.object({
  member: z.object({ id: memberId, name: z.string(), peerURLs: z.array(z.string()), isLearner: z.literal(true) }),
  initialCluster: z.string().describe('Start the new etcd with `--initial-cluster <this>`.'),
  initialClusterState: z.literal('existing').describe('… and `--initial-cluster-state existing`.'),
});
export type RegistryAddLearnerData = z.infer<typeof RegistryAddLearnerDataSchema>;

export const RegistryMemberIdRequestSchema = z.object({ id: memberId });
export type RegistryMemberIdRequest = z.infer<typeof RegistryMemberIdRequestSchema>;

const memberList = z.array(z.object({ id: z.string(), name: z.string(), isLearner: z.boolean() })).describe('The membership after the change.');

export const RegistryPromoteRequestSchema = z.object({
  id: memberId,
  force: z
    .boolean()
    .optional()
    .describe("Skip the learner promotion rule (etcd still refuses below 90 % of the leader's log). Also `?force=true`."),
});
export type RegistryPromoteRequest = z.infer<typeof RegistryPromoteRequestSchema>;

export const RegistryPromoteDataSchema = z.object({
  promoted: memberId,
  members: memberList,
  forced: z.boolean().optional().describe('True when `force` skipped the promotion rule.'),
  lag: z.number().nullable().optional().describe("Entries the learner was behind the leader's committed index in the last poll; null when unknown."),
});
export type RegistryPromoteData = z.infer<typeof RegistryPromoteDataSchema>;

export const RegistryRemoveDataSchema = z.object({ removed: memberId, members: memberList });
export type RegistryRemoveData = z.infer<typeof RegistryRemoveDataSchema>;

export const RegistryLeaderTransferRequestSchema = z.object({ targetId: memberId });
export type RegistryLeaderTransferRequest = z.infer<typeof RegistryLeaderTransferRequestSchema>;

export const RegistryLeaderTransferDataSchema = z.object({
  leader: memberId.describe('The leader now.'),
  from: memberId.describe('The leader before.'),
  changed: z.boolean().describe('False when the target already led.'),
});
export type RegistryLeaderTransferData = z.infer<typeof RegistryLeaderTransferDataSchema>;

const ADMIN_HEADERS: HttpParam[] = [{ name: 'Authorization', required: true, description: '`Bearer <admin_token>`; callers must be on loopback.' }];
/** Every admin route takes the admin token, from loopback only. */
const adminRoute = (method: HttpMethod, path: string, { purpose, ...rest }: Omit<HttpRoute, 'method' | 'path' | 'auth' | 'headers'>): HttpRoute => ({
  method,
  path,
  purpose,
  auth: 'admin token',
  headers: ADMIN_HEADERS,
  ...rest,
});
const AUTH_ERRORS: RegistryErrorCode[] = ['unauthorized', 'forbidden', 'method_not_allowed'];
const CHANGE_ERRORS: RegistryErrorCode[] = [...AUTH_ERRORS, 'bad_request', 'payload_too_large', 'not_found', 'conf_change_failed', 'not_leader', 'not_ready', 'read_failed'];

export const REGISTRY_ADMIN_HTTP_API: HttpApi = {
  id: 'registry-admin',
  title: 'Registry admin API (`admin_addr`)',
  intro:
    'Membership and status of the etcd cluster behind a registry. Only from loopback with the admin token. Membership calls are never retried: a timeout means the outcome is unknown — check `status` before repeating.',
  guide: 'registry.md',
  errorBody: RegistryErrorEnvelopeSchema,
  errorCodes: REGISTRY_ERROR_CODES,
  envelope: { wrap: registryOkEnvelope, description: REGISTRY_ENVELOPE_DESCRIPTION },
  routes: [
    adminRoute('GET', '/admin/v1/status', {
      purpose: 'Cluster id, leader, and every member as it answers its own status call.',
      responses: { 200: { description: 'Status.', schema: RegistryAdminStatusSchema } },
      errors: [...AUTH_ERRORS, 'read_failed', 'not_leader'],
    }),
    adminRoute('GET', '/admin/v1/replication/status', {
      purpose: "Raft progress and lag per member, this replica's index, and each cross-region replication stream (per target and namespace: connected, last revision applied, last error, since when).",
      responses: { 200: { description: 'Replication status.', schema: RegistryReplicationStatusSchema } },
      errors: [...AUTH_ERRORS, 'read_failed', 'not_leader'],
    }),
    adminRoute('POST', '/admin/v1/members/add-learner', {
      purpose: 'MemberAdd as a learner; answers how to start the new etcd.',
      body: RegistryAddLearnerRequestSchema,
      responses: { 200: { description: 'Added.', schema: RegistryAddLearnerDataSchema } },
      errors: CHANGE_ERRORS,
    }),
    adminRoute('POST', '/admin/v1/members/promote', {
      purpose:
        "MemberPromote once the learner passes the promotion rule (@orrery/spec's learnerPromotion): polled twice ~1 s apart, applied index within 100 entries of the leader's committed index (and ≥ 90 % of it), healthy, under one leader and term; else 409 `learner_not_caught_up`. `force` skips the rule.",
      query: [{ name: 'force', required: false, description: '`true` skips the promotion rule (same as `force: true` in the body).' }],
      body: RegistryPromoteRequestSchema,
      responses: { 200: { description: 'Promoted.', schema: RegistryPromoteDataSchema } },
      errors: [...CHANGE_ERRORS, 'learner_not_caught_up'],
    }),
    adminRoute('POST', '/admin/v1/members/remove', {
      purpose: 'MemberRemove, sent to a member that stays.',
      body: RegistryMemberIdRequestSchema,
      responses: { 200: { description: 'Removed.', schema: RegistryRemoveDataSchema } },
      errors: CHANGE_ERRORS,
    }),
    adminRoute('POST', '/admin/v1/leader/transfer', {
      purpose: 'MoveLeader, sent to the current leader.',
      body: RegistryLeaderTransferRequestSchema,
      responses: { 200: { description: 'Transferred (or already there).', schema: RegistryLeaderTransferDataSchema } },
      errors: CHANGE_ERRORS,
    }),
  ],
  schemas: {
    RegistryAdminStatus: RegistryAdminStatusSchema,
    RegistryMemberView: RegistryMemberViewSchema,
    RegistryReplicationStatus: RegistryReplicationStatusSchema,
    RegistryAddLearnerRequest: RegistryAddLearnerRequestSchema,
    RegistryAddLearnerData: RegistryAddLearnerDataSchema,
    RegistryMemberIdRequest: RegistryMemberIdRequestSchema,
    RegistryPromoteRequest: RegistryPromoteRequestSchema,
    RegistryPromoteData: RegistryPromoteDataSchema,
    RegistryRemoveData: RegistryRemoveDataSchema,
    RegistryLeaderTransferRequest: RegistryLeaderTransferRequestSchema,
    RegistryLeaderTransferData: RegistryLeaderTransferDataSchema,
  },
};
