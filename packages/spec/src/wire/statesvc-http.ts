import { z } from 'zod';
import type { HttpApi, HttpParam } from './http-route.ts';
import { HotKeySchema, KeyspaceHotKeysSchema, StateHotKeysResponseSchema } from './hot-keys.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_RETENTION_HEADER, IDEMPOTENCY_RETENTION_MAX_DIGITS, IDEMPOTENT_REPLAYED_HEADER } from './idempotency-key.ts';

/**
 * statesvc's HTTP API (RFC-0023 §3): the bodies it answers and accepts, its error codes and its
 * routes. statesvc, the admin API's statesvc client and docs/http-api.md all read this file.
 */

/** Error code → HTTP status. statestore's errors use the same table. */
export const STATE_ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  version_conflict: 412,
  quota_value_bytes: 413,
  quota_keys: 429,
  idempotency_key_invalid: 400,
  idempotency_mismatch: 422,
  idempotency_retention_invalid: 400,
  changes_expired: 410,
  too_many_streams: 429,
  fence_invalid: 400,
  fenced: 409,
  capability_unavailable: 503,
  internal: 500,
} as const;
export type StateErrorCode = keyof typeof STATE_ERROR_STATUS;

/**
 * The only texts the 5xx codes carry. What a driver or database said (SQL, parameters, paths,
 * OS errors) goes to the statesvc log, never into a response body or header.
 */
export const STATE_GENERIC_ERROR_MESSAGE = {
  capability_unavailable: 'the state database cannot be reached; retry later (details are in the statesvc log)',
  internal: 'internal error; see the statesvc log',
} as const satisfies Partial<Record<StateErrorCode, string>>;

/** Keys, list prefixes and the key a list cursor stands for: at most this many UTF-8 bytes. */
export const STATE_KEY_MAX_BYTES = 512;

// C0, DEL and C1 controls (NUL included); lone surrogates; U+10FFFF, which bounds prefix scans.
const STATE_KEY_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}|\u{10FFFF}/u;

/** UTF-8 length of a string (no Buffer: this package also runs in the browser). A lone surrogate counts 3, as its U+FFFD would. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Why a decoded key is not one statesvc stores, or undefined when it is: 1–512 UTF-8 bytes, no
 * control characters, no leading `#` (reserved for the platform). A list `prefix` follows the
 * same rules but may be empty (`allowEmpty`).
 */
export function stateKeyProblem(key: string, what = 'key', allowEmpty = false): string | undefined {
  if (key.length === 0) return allowEmpty ? undefined : `${what} is empty`;
  if (utf8Length(key) > STATE_KEY_MAX_BYTES) return `${what} is longer than ${STATE_KEY_MAX_BYTES} bytes`;
  if (key.charCodeAt(0) === 0x23) return `${what} starts with '#', which is reserved for the platform`;
  if (STATE_KEY_FORBIDDEN.test(key)) return `${what} contains a control character or an invalid code point`;
  return undefined;
}

const STATE_ERROR_WHEN: Record<StateErrorCode, string> = {
  bad_request: 'bad key, list `prefix` or `cursor` (control characters such as NUL, over 512 bytes, leading `#`), `If-Match`, `X-Orrery-State-Version`, `X-Orrery-State-TTL` or `limit`; `If-Match`, `X-Orrery-State-Version` and a CAS `expectVersion` naming different versions; body not JSON; wrong method; admin scope sent in headers; a value the database cannot store',
  unauthorized: 'no `Authorization: Bearer`, missing scope headers; admin URL unsigned, wrong or expired',
  forbidden: 'the token does not derive for the claimed namespace/keyspace; keyspace not declared',
  not_found: 'key absent or expired; admin usage of an undeclared keyspace; unknown route',
  version_conflict: '`If-Match` / `X-Orrery-State-Version` / `expectVersion` mismatch; create-only (`0`) on an existing key; a DELETE with a precondition on a missing key',
  quota_value_bytes: "body above the keyspace's `maxValueBytes` or the `--max-body-bytes` cap",
  quota_keys: "keyspace at `maxKeys`, or the namespace byte budget (`--namespace-byte-budget`) exhausted — the message says which; on a GET with `Idempotency-Key`, no room in the budget to record the answer",
  idempotency_key_invalid: '`Idempotency-Key` empty, longer than 255 characters, sent twice, or with a character outside visible ASCII (`!`–`~` except `"` and `\\`); one optional pair of surrounding double quotes is allowed',
  idempotency_mismatch: 'the `Idempotency-Key` was already used in this keyspace, within its retention, for a different request (method, key, body, precondition or TTL; a read and a write are different requests); use a new key for a new request',
  idempotency_retention_invalid: `\`${IDEMPOTENCY_RETENTION_HEADER}\` is not a whole number of seconds from 1 in at most ${IDEMPOTENCY_RETENTION_MAX_DIGITS} plain digits (no sign, fraction, unit or leading zero), or was sent twice`,
  changes_expired:
    "`GET /v1/changes`: `since` (or `Last-Event-ID`) is older than the keyspace's retained window (`--changes-retention`, `--changes-retention-events`) or ahead of its newest change (a memory statesvc restarted without `--data-dir`); also sent as an `error` event when a slow stream falls behind the window. Re-read the keys and follow from now (no `since`)",
  too_many_streams: '`GET /v1/changes`: this keyspace already has `--changes-max-streams` open streams on this statesvc; close one, or share one stream among readers',
  fence_invalid: '`X-Orrery-Fence` is not a positive integer of at most 2^53−1 written in decimal digits (no sign, no leading zero), or was sent twice',
  fenced:
    "the write's `X-Orrery-Fence` is not the key's current fence: a newer one was claimed (`POST /v1/fences/{key}`: another worker took the key over), or it was never issued for this key. The body's `fence` is the key's highest (0 = none claimed). Nothing was written: stop writing the key, or claim a new fence and re-read it before writing",
  capability_unavailable: 'the state driver (database) cannot be reached (the message is always the same, the details are in the statesvc log); or a fresh replica has not loaded the keyspace declarations from the resource store yet (its own message says so; `/readyz` is 503 until then)',
  internal: 'a bug; the message is always the same, the details are in the statesvc log',
};

export const StateErrorCodeSchema = z.enum(Object.keys(STATE_ERROR_STATUS) as [StateErrorCode, ...StateErrorCode[]]);

export const StateErrorBodySchema = z.object({
  error: z.string().describe('What went wrong and what to do about it.'),
  code: StateErrorCodeSchema.describe('Machine-readable code; the HTTP status follows from it.'),
  fence: z.number().int().nonnegative().optional().describe('Only with `fenced`: the highest fence claimed for the key (0 = none).'),
});
export type StateErrorBody = z.infer<typeof StateErrorBodySchema>;

const version = z.number().int().positive().describe('The key\'s version after the write: from one global sequence, it only grows (also across delete and re-create).');

export const StateValueResponseSchema = z.object({
  value: z.json().describe('The stored JSON value, exactly as written. Its version is in `X-Orrery-State-Version`.'),
});
export type StateValueResponse = z.infer<typeof StateValueResponseSchema>;

export const StateVersionResponseSchema = z.object({ version });
export type StateVersionResponse = z.infer<typeof StateVersionResponseSchema>;

export const StateDeletedResponseSchema = z.object({ deleted: z.literal(true).describe('Always true: a missing key answers 404 instead.') });
export type StateDeletedResponse = z.infer<typeof StateDeletedResponseSchema>;

export const StateCasRequestSchema = z.object({
  expectVersion: z.number().int().nonnegative().describe('The version the write expects; `0` = create only.'),
  value: z.json().describe('The new JSON value.'),
});
export type StateCasRequest = z.infer<typeof StateCasRequestSchema>;

export const StateFenceResponseSchema = z.object({
  key: z.string().describe('The key, decoded.'),
  fence: z
    .number()
    .int()
    .positive()
    .describe("The key's new fence: higher than any fence issued before for it (from the global version sequence, so never reused, also after the keyspace is deleted). Send it as `X-Orrery-Fence` on every write of the key."),
});
export type StateFenceResponse = z.infer<typeof StateFenceResponseSchema>;

export const StateListResponseSchema = z.object({
  keys: z.array(z.string()).describe('Keys in UTF-8 byte order.'),
  cursor: z.string().describe('Opaque; pass it back as `cursor` for the next page. Empty when the listing is done.'),
});
export type StateListResponse = z.infer<typeof StateListResponseSchema>;

const defaultTTL = z.string().nullable().describe('As declared in `spec.state.defaultTTL` (e.g. `"1h"`), or null.');

export const StateKeyspaceUsageSchema = z.object({
  namespace: z.string(),
  keyspace: z.string(),
  keys: z.number().int().nonnegative().describe('Live keys.'),
  bytes: z.number().int().nonnegative().describe('Bytes of the live values.'),
  maxKeys: z.number().int().positive().describe('Effective limit (a declared 0 resolved to the platform default).'),
  maxValueBytes: z.number().int().positive().describe('Effective limit per value.'),
  defaultTTL,
});
export type StateKeyspaceUsage = z.infer<typeof StateKeyspaceUsageSchema>;

export const StateNamespaceKeyspaceSchema = z.object({
  keyspace: z.string(),
  keys: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  declared: z.boolean().describe('False for data left behind by a keyspace no Function declares any more.'),
  maxKeys: z.number().int().positive().nullable().describe('Effective limit; null when not declared.'),
  maxValueBytes: z.number().int().positive().nullable().describe('Effective limit; null when not declared.'),
  defaultTTL,
});
export type StateNamespaceKeyspace = z.infer<typeof StateNamespaceKeyspaceSchema>;

export const StateNamespaceUsageSchema = z.object({
  namespace: z.string(),
  keys: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  byteBudget: z.number().int().nonnegative().describe('`--namespace-byte-budget`; 0 = none.'),
  keyspaces: z.array(StateNamespaceKeyspaceSchema).describe('Declared keyspaces and keyspaces holding data, by name.'),
});
export type StateNamespaceUsage = z.infer<typeof StateNamespaceUsageSchema>;

export const StateNamespacesResponseSchema = z.object({
  namespaces: z.array(StateNamespaceUsageSchema).describe('By name; namespaces with declared keyspaces or data.'),
});
export type StateNamespacesResponse = z.infer<typeof StateNamespacesResponseSchema>;

export const StateKeyspaceDeletedSchema = z.object({
  deleted: z.number().int().nonnegative().describe('Live keys removed (0 the second time).'),
});
export type StateKeyspaceDeleted = z.infer<typeof StateKeyspaceDeletedSchema>;

/** What a change feed event says happened to a key (docs/state.md "Change feed"). */
export const STATE_CHANGE_OPS = ['set', 'delete', 'expire'] as const;
export type StateChangeOp = (typeof STATE_CHANGE_OPS)[number];

/** The `data` of one `GET /v1/changes` event; its SSE `id` is `seq`. */
export const StateChangeEventSchema = z.object({
  seq: z.number().int().positive().describe("The change's number in its keyspace: 1, 2, 3, … in commit order, with no gap. Resume after it with `since` or `Last-Event-ID`."),
  key: z.string(),
  op: z.enum(STATE_CHANGE_OPS).describe('`set` (PUT or CAS), `delete` (a live key deleted) or `expire` (an expired key removed: by the sweeper, or earlier by a write that met it).'),
  version: z.number().int().positive().describe('For `set` the version written; for `delete` and `expire` the version removed.'),
  value: z.json().describe('Only for `set`: the value written, exactly as stored.').optional(),
});
export type StateChangeEvent = z.infer<typeof StateChangeEventSchema>;

/**
 * What a keyspace's writes leave behind, as statesvc answers `GET /v1/admin/keyspace-writes` and
 * the admin API's `state.keyspaceWrites` passes on (docs/state.md "Change feed", "Idempotent
 * writes", "Fencing"): the change feed's retained window and newest changes, the stored
 * idempotency outcomes, and the keys' fences. Values are never included: a change shows its
 * key, op and version only.
 */

/** Newest changes and fences listed by default, and at most. */
export const KEYSPACE_WRITES_DEFAULT_LIMIT = 20;
export const KEYSPACE_WRITES_MAX_LIMIT = 100;

const count = z.number().int().nonnegative();

export const RecentChangeSchema = z.object({
  seq: z.number().int().positive(),
  key: z.string(),
  op: z.enum(STATE_CHANGE_OPS),
  version: z.number().int().positive(),
  at: z.number().int().nonnegative().describe('When the change was recorded (epoch ms, the statestore clock).'),
});
export type RecentChange = z.infer<typeof RecentChangeSchema>;

export const KeyFenceSchema = z.object({
  key: z.string(),
  fence: z.number().int().positive().describe("The key's current fence: writes carrying an older one are refused (409 fenced)."),
});
export type KeyFence = z.infer<typeof KeyFenceSchema>;

export const StateKeyspaceWritesSchema = z.object({
  namespace: z.string(),
  keyspace: z.string(),
  replica: z.string().describe('The statesvc replica that answered: the counters below are its own, since it started.'),
  countingSince: z.number().int().nonnegative().describe('When that replica started counting (epoch ms).'),
  changes: z.object({
    low: count.describe('Newest pruned change (0 = none pruned): a reader with `since` below it gets 410 changes_expired.'),
    head: count.describe('Newest change recorded (0 = none yet).'),
    oldestAt: z.number().int().nonnegative().nullable().describe('When the oldest retained change was recorded (epoch ms); null when none is retained. A reader that left before it must re-read the keys.'),
    retentionMs: count.describe('`--changes-retention` in ms (0 = no age bound).'),
    retentionEvents: count.describe('`--changes-retention-events` (0 = no count bound).'),
    openStreams: count.describe('Change streams (GET /v1/changes) open on this keyspace on this replica.'),
    recent: z.array(RecentChangeSchema).describe('The newest retained changes, newest first, without values.'),
  }),
  idempotency: z.object({
    records: count.describe("Stored outcomes within their retention, recorded reads' included (all replicas: read from the store)."),
    bytes: count.describe('What they count against the namespace byte budget (a recorded read with the value it holds).'),
    retentionMs: z.number().int().positive().describe("How long an outcome is kept (the keyspace's idempotencyRetention, else the statesvc default)."),
    replayed: count.describe('Writes and recorded reads answered with a stored outcome (Idempotent-Replayed: true) on this replica.'),
    mismatched: count.describe('Writes and recorded reads refused with 422 idempotency_mismatch on this replica.'),
  }),
  fences: z.object({
    keys: count.describe('Keys holding a fence (all replicas: read from the store).'),
    newest: z.array(KeyFenceSchema).describe('The most recently claimed keys, newest first.'),
    claimed: count.describe('Fence claims (POST /v1/fences/{key}) on this replica.'),
    refused: count.describe('Writes refused with 409 fenced on this replica: late writes of a stale owner.'),
  }),
});
export type StateKeyspaceWrites = z.infer<typeof StateKeyspaceWritesSchema>;

export const StateHealthSchema = z.object({ status: z.literal('ok') });
export const StateReadySchema = z.object({ status: z.literal('ready') });

const SCOPE_HEADERS: HttpParam[] = [
  { name: 'Authorization', required: true, description: '`Bearer <token>` from the file at `ORRERY_STATE_TOKEN_PATH`.' },
  { name: 'X-Orrery-State-Namespace', required: true, description: 'The namespace the token was issued for.' },
  { name: 'X-Orrery-State-Keyspace', required: true, description: 'The keyspace the token was issued for.' },
];
const IF_MATCH: HttpParam = { name: 'If-Match', description: 'A version (`5` or `"5"`): write (or delete) only if the key is at it; `0` = create only. 412 otherwise, also when the key is missing.' };
const VERSION_IN: HttpParam = { name: 'X-Orrery-State-Version', description: 'Same as `If-Match` (RFC-0023 lists it among the request headers); with `If-Match` or a CAS `expectVersion` it must name the same version, or 400.' };
const TTL_IN: HttpParam = { name: 'X-Orrery-State-TTL', description: 'Seconds to live; `0` = never expires (overrides the keyspace `defaultTTL`).' };
/** The write fence header (docs/state.md "Fencing"). */
export const FENCE_HEADER = 'X-Orrery-Fence';
const FENCE_IN: HttpParam = {
  name: FENCE_HEADER,
  description:
    "A fence from `POST /v1/fences/{key}`: the write lands only while it is the key's current fence, checked atomically with the write; otherwise 409 `fenced`. Without it the write is not checked.",
};
const VERSION_OUT: HttpParam = { name: 'X-Orrery-State-Version', description: 'The version of the value answered or written.' };
const IDEMPOTENCY_KEY_IN: HttpParam = {
  name: IDEMPOTENCY_KEY_HEADER,
  description: `A client id for this write (1–${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters, e.g. a UUID; surrounding double quotes optional). The outcome is stored with the write, in the same transaction, for the keyspace's \`idempotencyRetention\` (default 24 h; less with \`${IDEMPOTENCY_RETENTION_HEADER}\`): a retry with the same key and the same request gets the stored answer without writing again; the same key with a different request is 422 \`idempotency_mismatch\`. Scoped to the token's keyspace.`,
};
const IDEMPOTENCY_KEY_READ_IN: HttpParam = {
  name: IDEMPOTENCY_KEY_HEADER,
  description: `Records this read (a recorded read; same key rules as on a write): the first request with the key stores its answer — the value, version and deadline, or the 404 — for the keyspace's \`idempotencyRetention\` (less with \`${IDEMPOTENCY_RETENTION_HEADER}\`), and a repeat of the same GET with the key gets that answer again, even after the key changed. The same key on another request (another key, or a write) is 422 \`idempotency_mismatch\`. The record counts against the namespace byte budget with the value's bytes. Without the header a GET records nothing.`,
};
const RETENTION_IN: HttpParam = {
  name: IDEMPOTENCY_RETENTION_HEADER,
  description: `Only with \`${IDEMPOTENCY_KEY_HEADER}\`: keep this request's outcome for at most this many seconds (1–${IDEMPOTENCY_RETENTION_MAX_DIGITS} plain digits), capped at the keyspace's \`idempotencyRetention\`. Anything else is 400 \`idempotency_retention_invalid\`.`,
};
const REPLAYED_OUT: HttpParam = { name: IDEMPOTENT_REPLAYED_HEADER, description: '`true` when the answer is the stored outcome of an earlier request with the same `Idempotency-Key` (nothing was written or read this time).' };
const KEY: HttpParam = { name: 'key', required: true, description: 'Percent-encoded (`encodeURIComponent`); 1–512 UTF-8 bytes, no control characters, no leading `#`.' };
const SIGNED: HttpParam[] = [
  { name: 'expires', required: true, description: 'Unix seconds; part of the signed URL (`signAdminUrl` from `@orrery/auth`).' },
  { name: 'signature', required: true, description: 'HMAC over the method and path?query (omitted in pass-through mode).' },
];
const STATE_AUTH = 'state token (scope headers)';
const ADMIN_AUTH = 'signed admin URL';
const ALWAYS: StateErrorCode[] = ['capability_unavailable', 'internal'];
const IDEMPOTENCY_ERRORS: StateErrorCode[] = ['idempotency_key_invalid', 'idempotency_mismatch', 'idempotency_retention_invalid'];
const FENCE_ERRORS: StateErrorCode[] = ['fence_invalid', 'fenced'];

export const STATESVC_HTTP_API: HttpApi = {
  id: 'statesvc',
  title: 'statesvc (keyed state)',
  intro:
    'The state API functions call (`ORRERY_STATE_URL`), default port 8080. Values are JSON. Every error answers `StateErrorBody` with the status of its code.',
  guide: 'state.md',
  errorBody: StateErrorBodySchema,
  errorCodes: Object.fromEntries(Object.entries(STATE_ERROR_STATUS).map(([code, status]) => [code, { status, when: STATE_ERROR_WHEN[code as StateErrorCode] }])),
  routes: [
    {
      method: 'GET',
      path: '/v1/state/{key}',
      purpose: 'Read one key (with `Idempotency-Key`: a recorded read, answered the same on every repeat).',
      auth: STATE_AUTH,
      pathParams: [KEY],
      headers: [...SCOPE_HEADERS, IDEMPOTENCY_KEY_READ_IN, RETENTION_IN],
      responseHeaders: [
        VERSION_OUT,
        { name: 'X-Orrery-State-TTL', description: 'Seconds left, only when the key expires (on a recorded read: until the recorded entry\'s deadline, 0 once it passed).' },
        REPLAYED_OUT,
      ],
      responses: { 200: { description: 'The value.', schema: StateValueResponseSchema } },
      errors: ['bad_request', 'unauthorized', 'forbidden', 'not_found', 'quota_keys', ...IDEMPOTENCY_ERRORS, ...ALWAYS],
    },
    {
      method: 'PUT',
      path: '/v1/state/{key}',
      purpose: 'Write one key (a compare-and-swap with `If-Match`).',
      auth: STATE_AUTH,
      pathParams: [KEY],
      headers: [...SCOPE_HEADERS, IF_MATCH, VERSION_IN, TTL_IN, IDEMPOTENCY_KEY_IN, RETENTION_IN, FENCE_IN],
      bodyDescription: 'Any JSON value, stored as sent (surrounding whitespace trimmed); its size is its UTF-8 byte count.',
      responseHeaders: [VERSION_OUT, REPLAYED_OUT],
      responses: { 200: { description: 'Written.', schema: StateVersionResponseSchema } },
      errors: ['bad_request', 'unauthorized', 'forbidden', 'version_conflict', 'quota_value_bytes', 'quota_keys', ...IDEMPOTENCY_ERRORS, ...FENCE_ERRORS, ...ALWAYS],
    },
    {
      method: 'DELETE',
      path: '/v1/state/{key}',
      purpose: 'Delete one key.',
      auth: STATE_AUTH,
      pathParams: [KEY],
      headers: [...SCOPE_HEADERS, IF_MATCH, VERSION_IN, IDEMPOTENCY_KEY_IN, RETENTION_IN, FENCE_IN],
      responseHeaders: [REPLAYED_OUT],
      responses: { 200: { description: 'Deleted.', schema: StateDeletedResponseSchema } },
      errors: ['bad_request', 'unauthorized', 'forbidden', 'not_found', 'version_conflict', ...IDEMPOTENCY_ERRORS, ...FENCE_ERRORS, ...ALWAYS],
    },
    {
      method: 'POST',
      path: '/v1/state/{key}/cas',
      purpose: 'Compare-and-swap for clients that cannot send `If-Match`.',
      auth: STATE_AUTH,
      pathParams: [KEY],
      headers: [...SCOPE_HEADERS, VERSION_IN, TTL_IN, IDEMPOTENCY_KEY_IN, RETENTION_IN, FENCE_IN],
      body: StateCasRequestSchema,
      responseHeaders: [VERSION_OUT, REPLAYED_OUT],
      responses: { 200: { description: 'Written.', schema: StateVersionResponseSchema } },
      errors: ['bad_request', 'unauthorized', 'forbidden', 'version_conflict', 'quota_value_bytes', 'quota_keys', ...IDEMPOTENCY_ERRORS, ...FENCE_ERRORS, ...ALWAYS],
    },
    {
      method: 'POST',
      path: '/v1/fences/{key}',
      purpose: 'Claim a key for this worker: a new fence, higher than any issued before for the key. Writes sent with an older fence are refused from now on (409 `fenced`).',
      auth: STATE_AUTH,
      pathParams: [KEY],
      headers: SCOPE_HEADERS,
      responses: { 200: { description: 'The new fence.', schema: StateFenceResponseSchema } },
      errors: ['bad_request', 'unauthorized', 'forbidden', ...ALWAYS],
    },
    {
      method: 'GET',
      path: '/v1/state',
      purpose: 'List keys, one page at a time.',
      auth: STATE_AUTH,
      headers: SCOPE_HEADERS,
      query: [
        { name: 'prefix', description: 'Only keys starting with this; may be empty, otherwise the key rules apply (≤ 512 UTF-8 bytes, no control characters, no leading `#`).' },
        { name: 'cursor', description: 'From the previous page, unchanged; absent or empty = from the start. Anything this service did not hand out is a 400.' },
        { name: 'limit', description: 'Page size, 1–1000 (default 100).' },
      ],
      responses: { 200: { description: 'One page.', schema: StateListResponseSchema } },
      errors: ['bad_request', 'unauthorized', 'forbidden', ...ALWAYS],
    },
    {
      method: 'GET',
      path: '/v1/changes',
      purpose: "Follow the keyspace's changes as Server-Sent Events, in commit order, resumable.",
      auth: STATE_AUTH,
      headers: [
        ...SCOPE_HEADERS,
        { name: 'Last-Event-ID', description: 'The last `seq` seen (what `EventSource` sends when it reconnects); wins over `since`.' },
      ],
      query: [
        { name: 'prefix', description: 'Only changes of keys starting with this; the list `prefix` rules apply.' },
        {
          name: 'since',
          description:
            'Resume after this `seq` (`0` = from the first retained change). Absent = from now. Older than the retained window or ahead of the newest change: 410 `changes_expired`.',
        },
      ],
      responses: {
        200: {
          description:
            'An event stream: first `id: <start>` alone (the position the stream starts after), then one event per change (`id: <seq>`, `data: StateChangeEvent`), comment lines (`: keep-alive`) as heartbeats, and `event: error` with a `StateErrorBody` (`changes_expired`, `forbidden`) before the server closes a stream it cannot continue.',
          schema: StateChangeEventSchema,
          contentType: 'text/event-stream',
        },
      },
      errors: ['bad_request', 'unauthorized', 'forbidden', 'changes_expired', 'too_many_streams', ...ALWAYS],
    },
    {
      method: 'GET',
      path: '/v1/admin/usage',
      purpose: "One keyspace's usage and limits (console, admin API).",
      auth: ADMIN_AUTH,
      query: [
        { name: 'scope-namespace', required: true, description: 'Namespace of the keyspace.' },
        { name: 'scope-keyspace', required: true, description: 'The keyspace.' },
        ...SIGNED,
      ],
      responses: { 200: { description: 'Usage.', schema: StateKeyspaceUsageSchema } },
      errors: ['bad_request', 'unauthorized', 'not_found', ...ALWAYS],
    },
    {
      method: 'GET',
      path: '/v1/admin/namespaces',
      purpose: 'Usage of every namespace (or one) with its keyspaces and byte budget.',
      auth: ADMIN_AUTH,
      query: [{ name: 'scope-namespace', description: 'Only this namespace.' }, ...SIGNED],
      responses: { 200: { description: 'Usage per namespace.', schema: StateNamespacesResponseSchema } },
      errors: ['bad_request', 'unauthorized', ...ALWAYS],
    },
    {
      method: 'GET',
      path: '/v1/admin/hot-keys',
      purpose: "The hottest keys of each keyspace (or one) on this replica: decayed request rate, share of the keyspace's keyed requests and the error bound (docs/state.md \"Hot keys\").",
      auth: ADMIN_AUTH,
      query: [
        { name: 'scope-namespace', description: 'Only this namespace.' },
        { name: 'scope-keyspace', description: 'Only this keyspace (needs `scope-namespace`).' },
        { name: 'limit', description: 'Keys per keyspace, 1–50 (default 10).' },
        ...SIGNED,
      ],
      responses: { 200: { description: 'Hot keys per keyspace.', schema: StateHotKeysResponseSchema } },
      errors: ['bad_request', 'unauthorized', ...ALWAYS],
    },
    {
      method: 'GET',
      path: '/v1/admin/keyspace-writes',
      purpose: "One keyspace's change feed window and newest changes (keys, no values), stored idempotency outcomes and fences, with this replica's replay, mismatch, claim and refusal counts (console, admin API).",
      auth: ADMIN_AUTH,
      query: [
        { name: 'scope-namespace', required: true, description: 'Namespace of the keyspace.' },
        { name: 'scope-keyspace', required: true, description: 'A declared keyspace.' },
        { name: 'limit', description: `Newest changes and fences listed, 1–${KEYSPACE_WRITES_MAX_LIMIT} (default ${KEYSPACE_WRITES_DEFAULT_LIMIT}).` },
        ...SIGNED,
      ],
      responses: { 200: { description: "The keyspace's writes.", schema: StateKeyspaceWritesSchema } },
      errors: ['bad_request', 'unauthorized', 'not_found', ...ALWAYS],
    },
    {
      method: 'DELETE',
      path: '/v1/admin/keyspace',
      purpose: "Remove every key of one keyspace (the operator's deletion policy `delete`); idempotent, declared or not.",
      auth: ADMIN_AUTH,
      query: [
        { name: 'scope-namespace', required: true, description: 'A DNS-1123 label.' },
        { name: 'scope-keyspace', required: true, description: 'A keyspace name.' },
        ...SIGNED,
      ],
      responses: { 200: { description: 'Deleted.', schema: StateKeyspaceDeletedSchema } },
      errors: ['bad_request', 'unauthorized', ...ALWAYS],
    },
    {
      method: 'GET',
      path: '/healthz',
      purpose: 'The process is up.',
      auth: 'none',
      responses: { 200: { description: 'Alive.', schema: StateHealthSchema } },
      errors: [],
    },
    {
      method: 'GET',
      path: '/readyz',
      purpose: 'The state driver answers and the keyspace declarations were loaded once (with `--store-url`: its first sync).',
      auth: 'none',
      responses: { 200: { description: 'Ready.', schema: StateReadySchema } },
      errors: ['capability_unavailable'],
    },
    {
      method: 'GET',
      path: '/metrics',
      purpose: 'Prometheus metrics (`orrery_statestore_*`, `orrery_statesvc_*`).',
      auth: 'none',
      responses: { 200: { description: 'Prometheus text format.', contentType: 'text/plain' } },
      errors: [],
    },
  ],
  schemas: {
    StateErrorBody: StateErrorBodySchema,
    StateValueResponse: StateValueResponseSchema,
    StateVersionResponse: StateVersionResponseSchema,
    StateDeletedResponse: StateDeletedResponseSchema,
    StateCasRequest: StateCasRequestSchema,
    StateListResponse: StateListResponseSchema,
    StateFenceResponse: StateFenceResponseSchema,
    StateKeyspaceUsage: StateKeyspaceUsageSchema,
    StateNamespacesResponse: StateNamespacesResponseSchema,
    StateHotKeysResponse: StateHotKeysResponseSchema,
    KeyspaceHotKeys: KeyspaceHotKeysSchema,
    HotKey: HotKeySchema,
    StateNamespaceUsage: StateNamespaceUsageSchema,
    StateNamespaceKeyspace: StateNamespaceKeyspaceSchema,
    StateKeyspaceDeleted: StateKeyspaceDeletedSchema,
    StateChangeEvent: StateChangeEventSchema,
    StateKeyspaceWrites: StateKeyspaceWritesSchema,
    RecentChange: RecentChangeSchema,
    KeyFence: KeyFenceSchema,
    StateHealth: StateHealthSchema,
    StateReady: StateReadySchema,
  },
};
