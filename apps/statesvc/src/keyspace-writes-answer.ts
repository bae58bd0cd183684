import { hostname } from 'node:os';
import { DNS1123_LABEL, KEYSPACE_PATTERN, KEYSPACE_WRITES_DEFAULT_LIMIT, KEYSPACE_WRITES_MAX_LIMIT, type StateKeyspaceWrites } from '@orrery/spec';
import type { ChangeRetention, StateDriver } from '@orrery/statestore';
import { HttpError } from './http-error.ts';
import type { KeyspaceWriteCounters } from './keyspace-write-counters.ts';
import { keyspaceId, type KeyspaceTable } from './keyspaces.ts';

export interface KeyspaceWritesSources {
  driver: Pick<StateDriver, 'changeWindow' | 'changes' | 'idempotencyUsage' | 'fenceSummary'>;
  keyspaces: KeyspaceTable;
  counters: KeyspaceWriteCounters;
  /** Change streams open on the keyspace on this replica. */
  openStreams: (namespace: string, keyspace: string) => number;
  changeRetention: ChangeRetention;
  /** statesvc's idempotency retention for keyspaces that declare none. */
  defaultIdempotencyRetentionMs: number;
}

/** Query of GET /v1/admin/keyspace-writes: a declared keyspace and how many changes/fences to list. */
export function parseKeyspaceWritesQuery(params: URLSearchParams): { namespace: string; keyspace: string; limit: number } {
  const namespace = params.get('scope-namespace');
  const keyspace = params.get('scope-keyspace');
  if (!namespace || !keyspace) throw new HttpError('bad_request', 'keyspace-writes needs scope-namespace and scope-keyspace query parameters');
  if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) throw new HttpError('bad_request', 'scope-namespace must be a DNS-1123 label');
  if (keyspace.length > 63 || !KEYSPACE_PATTERN.test(keyspace)) throw new HttpError('bad_request', 'scope-keyspace must be a keyspace name (lower-case letters, digits, dashes)');
  const limitText = params.get('limit');
  let limit = KEYSPACE_WRITES_DEFAULT_LIMIT;
  if (limitText !== null) {
    if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > KEYSPACE_WRITES_MAX_LIMIT) {
      throw new HttpError('bad_request', `limit must be an integer from 1 to ${KEYSPACE_WRITES_MAX_LIMIT}`);
    }
    limit = Number(limitText);
  }
  return { namespace, keyspace, limit };
}

/**
 * One keyspace's change feed window and newest changes, idempotency outcomes and fences. The
 * store-backed numbers are the whole platform's; the counters are this replica's. Values are
 * left out: the console shows which keys changed, not what they hold.
 */
export async function keyspaceWritesAnswer(params: URLSearchParams, src: KeyspaceWritesSources): Promise<StateKeyspaceWrites> {
  const { namespace, keyspace, limit } = parseKeyspaceWritesQuery(params);
  const decl = src.keyspaces.get(keyspaceId(namespace, keyspace));
  if (!decl) throw new HttpError('not_found', `keyspace ${namespace}/${keyspace} is not declared by any function (spec.state)`);
  const scope = { namespace, keyspace };
  const window = await src.driver.changeWindow(scope);
  const retained = window.head > window.low;
  const [page, oldest, idempotency, fences] = await Promise.all([
    retained ? src.driver.changes(scope, { since: Math.max(window.low, window.head - limit), limit }) : undefined,
    retained ? src.driver.changes(scope, { since: window.low, limit: 1 }) : undefined,
    src.driver.idempotencyUsage(scope),
    src.driver.fenceSummary(scope, limit),
  ]);
  const counts = src.counters.of(namespace, keyspace);
  return {
    namespace,
    keyspace,
    replica: hostname(),
    countingSince: src.counters.since,
    changes: {
      low: window.low,
      head: Math.max(window.head, page?.head ?? 0),
      oldestAt: oldest?.changes[0]?.at ?? null,
      retentionMs: src.changeRetention.maxAgeMs,
      retentionEvents: src.changeRetention.maxEvents,
      openStreams: src.openStreams(namespace, keyspace),
      recent: (page?.changes ?? []).map((c) => ({ seq: c.seq, key: c.key, op: c.op, version: c.version, at: c.at })).reverse(),
    },
    idempotency: {
      records: idempotency.records,
      bytes: idempotency.bytes,
      retentionMs: decl.idempotencyRetentionMs ?? src.defaultIdempotencyRetentionMs,
      replayed: counts.replayed,
      mismatched: counts.mismatched,
    },
    fences: { keys: fences.keys, newest: fences.newest, claimed: counts.claimed, refused: counts.refused },
  };
}
