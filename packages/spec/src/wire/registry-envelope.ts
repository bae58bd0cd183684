import { z } from 'zod';

/**
 * The registry's answer envelope `{code, message, data, requestId}` and its codes (the StellMap
 * seed's, plus `revision_expired` for watch resumption past compaction, the write credential
 * codes and the watch caps), shared by its public and admin listeners.
 */
export const REGISTRY_CODE_STATUS = {
  ok: 200,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  credential_required: 401,
  credential_rejected: 403,
  not_found: 404,
  method_not_allowed: 405,
  conf_change_failed: 409,
  learner_not_caught_up: 409,
  revision_expired: 410,
  payload_too_large: 413,
  too_many_watches: 429,
  not_ready: 503,
  not_leader: 503,
  read_failed: 503,
  scan_failed: 503,
  propose_failed: 503,
  watch_capacity_reached: 503,
} as const;
export type RegistryCode = keyof typeof REGISTRY_CODE_STATUS;
export type RegistryErrorCode = Exclude<RegistryCode, 'ok'>;

export const REGISTRY_ERROR_WHEN: Record<RegistryErrorCode, string> = {
  bad_request: 'a body or query that does not parse (the message names the field and shows a valid example)',
  unauthorized: 'no `Authorization: Bearer` where a token is needed',
  forbidden: 'wrong token; admin API called from a non-loopback address',
  credential_required: 'a register, heartbeat or deregister that needs a credential came without `Authorization: Bearer`: a registration credential under `orrery.functions.`, a write token elsewhere when write tokens are on',
  credential_rejected: 'the credential does not cover this namespace and service (another revision, namespace or scope, or a key this registry does not hold)',
  not_found: 'instance or member not registered; unknown route',
  method_not_allowed: 'wrong method for the route (`Allow` says which)',
  conf_change_failed: 'etcd refused a membership change (the message says why and what to do)',
  learner_not_caught_up: 'a promote of a learner that the promotion rule does not pass yet (applied index within 100 entries of the leader\'s committed index, healthy, in 2 polls under one leader); the message names applied, committed and lag. Wait, or send `force: true`',
  revision_expired: '`sinceRevision` compacted away (or ahead of etcd) with `includeSnapshot=false`',
  payload_too_large: 'request body above 64 KiB',
  too_many_watches: 'this client (remote address) already holds `max_watches_per_client` watch streams; close one or share one stream (`Retry-After` says when to retry)',
  not_ready: 'the index is still loading, or etcd has no leader / no reachable voter',
  not_leader: 'etcd has no leader right now (an election is running); retry shortly',
  read_failed: 'a read from etcd failed or timed out',
  scan_failed: 'a range scan of etcd failed',
  propose_failed: 'etcd did not take a write',
  watch_capacity_reached: 'the replica holds `max_watches` watch streams in total; retry after `Retry-After`, or ask the operator to raise the cap or add replicas',
};

export const RegistryCodeSchema = z.enum(Object.keys(REGISTRY_CODE_STATUS) as [RegistryCode, ...RegistryCode[]]);

/** An error answer: any code but `ok`, an empty `data`. */
export const RegistryErrorEnvelopeSchema = z.object({
  code: RegistryCodeSchema.exclude(['ok']).describe('Machine-readable code; the HTTP status follows from it.'),
  message: z.string().describe('What went wrong and what to do about it.'),
  data: z.object({}).describe('Empty on errors.'),
  requestId: z.string().describe('Also in the `X-Request-Id` header; quote it when reporting a problem.'),
});
export type RegistryErrorEnvelope = z.infer<typeof RegistryErrorEnvelopeSchema>;

/** A success answer carrying `data`. */
export function registryOkEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.literal('ok'),
    message: z.string().describe('Empty on success.'),
    data,
    requestId: z.string(),
  });
}

export const REGISTRY_ENVELOPE_DESCRIPTION =
  'Every JSON answer not marked "no envelope" is the envelope `{code, message, data, requestId}` (`requestId` also in `X-Request-Id`): on success `code` is `ok` and the answer schemas below describe `data`; errors are `RegistryErrorEnvelope`.';

/** The code table both registry APIs render: status and when each error code is answered. */
export const REGISTRY_ERROR_CODES: Record<string, { status: number; when: string }> = Object.fromEntries(
  (Object.keys(REGISTRY_ERROR_WHEN) as RegistryErrorCode[]).map((code) => [code, { status: REGISTRY_CODE_STATUS[code], when: REGISTRY_ERROR_WHEN[code] }]),
);
