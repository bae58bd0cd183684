import { randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import type { Connection } from '@orrery/db';
import { idempotencyRecordBytes } from '@orrery/spec';
import { ChangeWatchers } from './change-watchers.ts';
import { fenced, idempotencyMismatch, quotaKeys, quotaNamespaceBytes, StateStoreError, versionConflict } from './errors.ts';
import { decodeCursor, encodeCursor, listLimit, MAX_CHAR } from './key-order.ts';
import { LifoStatementPool } from './lifo-statement-pool.ts';
import { ReadBatcher } from './read-batcher.ts';
import { WriteBatcher } from './write-batcher.ts';
import { DEFAULT_CHANGES_LIMIT, type ChangeOp, type ChangeRecord, type ChangeRetention, type ChangesOptions, type ChangesPage, type ChangeWindow } from './types.ts';
import type {
  DeleteOptions,
  Entry,
  FenceSummary,
  IdempotencyClaim,
  IdempotencyUsage,
  ListOptions,
  ListResult,
  NamespaceUsage,
  ReadOutcome,
  RecordBudget,
  Scope,
  SetOptions,
  StateDriver,
  Usage,
  WriteBudget,
  WriteOutcome,
  WriteResult,
} from './types.ts';

type Exec = { execute(q: SQL): Promise<unknown> };
type NsKs = Pick<Scope, 'namespace' | 'keyspace'>;

const liveAt = (now: number) => sql`(expires_at is null or expires_at > ${now})`;

// The hot statements as fixed text (prepared once per connection). The functions are created by
// packages/db/drizzle/0003_state_functions.sql (orrery_state_set as replaced by 0004), which argue their atomicity.
const GET_ENTRY =
  'select value, version, expires_at from state_entries where namespace = $1 and keyspace = $2 and key = $3 and (expires_at is null or expires_at > $4)';
// Reads of one keyspace batched into one statement (ReadBatcher); a batch of one uses GET_ENTRY.
const GET_ENTRIES =
  'select key, value, version, expires_at from state_entries where namespace = $1 and keyspace = $2 and key = any($3::text[]) and (expires_at is null or expires_at > $4)';
const SET_ENTRY = 'select result, new_version from orrery_state_set($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
// Overwrites of live keys of one keyspace in one transaction (migration 0008; WriteBatcher).
const SET_BATCH = 'select result, new_version from orrery_state_set_batch($1, $2, $3::text[], $4::text[], $5::integer[], $6::bigint[], $7)';
const DELETE_ENTRY = 'select result from orrery_state_delete($1, $2, $3, $4, $5)';
const DELETE_KEYSPACE = 'select deleted from orrery_state_delete_keyspace($1, $2, $3)';
// The change feed (migration 0005). One statement, so one snapshot: the head row and the
// changes are read together and the numbers seen are always 1..head with no hole.
const CHANGES_PAGE = `select h.seq as head, h.low, c.seq, c.key, c.op, c.version, c.value, c.at
  from state_change_heads h
  left join lateral (
    select c.seq, c.key, c.op, c.version, c.value, c.at from state_changes c
    where c.namespace = h.namespace and c.keyspace = h.keyspace and c.seq > $3 and c.seq <= h.seq and $3 >= h.low and starts_with(c.key, $5)
    order by c.seq limit $4) c on true
  where h.namespace = $1 and h.keyspace = $2`;
const CHANGE_WINDOW = 'select seq, low from state_change_heads where namespace = $1 and keyspace = $2';
const SWEEP_KEYSPACE = 'select orrery_state_sweep($1, $2, $3) as n';
const CHANGE_HEADS = 'select namespace, keyspace from state_change_heads where seq > low';
const PRUNE_CHANGES = 'select orrery_state_prune_changes($1, $2, $3, $4) as n';
const WAKE = 'select orrery_state_changes_wake($1)';
/** NOTIFY channel of the change feed; the payload is `<origin> <namespace>/<keyspace>`. */
export const CHANGES_CHANNEL = 'orrery_state_changes';

type ChangeRow = {
  head: string | number;
  low: string | number;
  seq: string | number | null;
  key: string | null;
  op: ChangeOp | null;
  version: string | number | null;
  value: string | null;
  at: string | number | null;
};

/** A feed read as a ChangesPage (see CHANGES_PAGE; no head row = no change yet). */
function changesPage(rows: ChangeRow[], opts: ChangesOptions, limit: number): ChangesPage {
  const head = rows.length ? Number(rows[0]!.head) : 0;
  const low = rows.length ? Number(rows[0]!.low) : 0;
  if (opts.since < low) return { low, head, expired: true, changes: [], next: opts.since };
  const changes: ChangeRecord[] = [];
  for (const r of rows) {
    if (r.seq === null) continue;
    const c: ChangeRecord = { seq: Number(r.seq), key: r.key!, op: r.op!, version: Number(r.version), at: Number(r.at) };
    if (r.value !== null) c.value = r.value;
    changes.push(c);
  }
  const next = changes.length === limit ? changes[limit - 1]!.seq : Math.max(opts.since, head);
  return { low, head, expired: false, changes, next };
}
// Migration 0006: the first four arguments are the idempotency claim (all null: none), then
// orrery_state_set's / orrery_state_delete's own.
const SET_IDEMPOTENT = 'select result, new_version, status, replayed from orrery_state_set_idempotent($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)';
const DELETE_IDEMPOTENT = 'select result, status, replayed from orrery_state_delete_idempotent($1, $2, $3, $4, $5, $6, $7, $8, $9)';
// Migration 0009: a recorded read (claim, read the live entry, store what it found; one statement).
const GET_RECORDED = 'select result, status, value, version, value_expires_at, replayed from orrery_state_get_recorded($1, $2, $3, $4, $5, $6, $7, $8, $9)';
const SWEEP_IDEMPOTENCY = 'with gone as (delete from state_idempotency where expires_at <= $1 returning 1) select count(*) as n from gone';
const FENCE_COUNT = 'select count(*) as n from state_fences where namespace = $1 and keyspace = $2';
const NEWEST_FENCES = 'select key, fence from state_fences where namespace = $1 and keyspace = $2 order by fence desc limit $3';
const IDEMPOTENCY_USAGE =
  "select count(*) as records, coalesce(sum(bytes), 0) as bytes from state_idempotency where namespace = $1 and keyspace = $2 and expires_at > $3 and result <> 'pending'";

type IdempotentRow = { result: string; new_version?: string | number | null; status: number | null; replayed: boolean; current_fence?: string | number | null };
// Migration 0007 (fencing): a claim is one upsert; a fenced write is 0006's functions with the
// fence first (NULL = not checked), and is also how a fenced write without an idempotency key runs.
const CLAIM_FENCE = 'select orrery_state_claim_fence($1, $2, $3) as fence';
const SET_FENCED =
  'select result, new_version, status, replayed, current_fence from orrery_state_set_fenced($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)';
const DELETE_FENCED = 'select result, status, replayed, current_fence from orrery_state_delete_fenced($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
const NO_IDEMPOTENCY = [null, null, null, null];

/** A `fenced` answer of orrery_state_{set,delete}_fenced as the driver's error. */
function fencedError(row: IdempotentRow, key: string, fence: number): StateStoreError {
  return fenced(key, fence, Number(row.current_fence ?? 0));
}

type EntryRow = { value: string; version: string | number; expires_at: string | number | null };
type KeyedEntryRow = EntryRow & { key: string };
/** A plain overwrite waiting in a write batch; `alone` holds orrery_state_set's arguments for a batch of one. */
type BatchedSet = { value: string; bytes: number; expiresAt: number | null; alone: unknown[] };
type SetRow = { result: string; new_version: string | number | null };
/** What a write that must run alone gets from a batch (a key that is not live, a refusal of its lone statement, a batch the database refused). */
const RUN_ALONE: SetRow = { result: 'retry', new_version: null };
/** The slice of PGlite's client this driver uses (embedded mode has no postgres.js). */
type PgliteClient = { query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }> };

// Module functions rather than per-call closures: cheaper on the hot path (see read-body.ts in statesvc).
function pgliteRows<T>(r: { rows: T[] }): T[] {
  return r.rows;
}

function entryOf(r: EntryRow | undefined): Entry | null {
  return r ? { value: r.value, version: Number(r.version), expiresAt: r.expires_at === null ? null : Number(r.expires_at) } : null;
}

function firstEntry(rows: EntryRow[]): Entry | null {
  return entryOf(rows[0]);
}

/** The rows of GET_ENTRIES as the entries of `keys`, in that order. */
function entriesOf(keys: string[], rows: KeyedEntryRow[]): Array<Entry | null> {
  const byKey = new Map<string, KeyedEntryRow>();
  for (const r of rows) byKey.set(r.key, r);
  return keys.map((k) => entryOf(byKey.get(k)));
}

/** The SQLSTATE of a database error, looking through wrappers (drizzle keeps the driver's error as `cause`). */
export function sqlState(err: unknown): string | undefined {
  let e = err;
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A database error as a StateStoreError. The message is fixed: what the database said (the SQL
 * with its parameters, on PGlite and through drizzle) travels only as `cause`, for the log.
 * Class 22 (data exception: e.g. a NUL byte in text) and 54 (program limit) mean the request
 * carried something Postgres will not store — a client error, not an outage.
 */
/**
 * The arguments every orrery_state_set* function takes after the key: the value and its size, when
 * it expires, the CAS mode and the budgets (0: no namespace byte budget), and the time.
 */
function setArgs(value: string, opts: SetOptions, budget: WriteBudget, now: number): unknown[] {
  const nsBudget = budget.namespaceByteBudget ?? 0;
  return [
    value,
    Buffer.byteLength(value, 'utf8'),
    opts.ttlMs && opts.ttlMs > 0 ? now + opts.ttlMs : null,
    opts.ifVersion ?? null,
    Number.isFinite(budget.maxKeys) ? budget.maxKeys : null,
    nsBudget > 0 ? nsBudget : 0,
    now,
  ];
}

/** The server answered the statement with an error (postgres.js's PostgresError): its transaction did not commit. */
function refusedByDatabase(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'PostgresError';
}

function unavailable(err: unknown): never {
  if (err instanceof StateStoreError) throw err;
  const state = sqlState(err);
  if (state !== undefined && (state.startsWith('22') || state.startsWith('54'))) {
    throw new StateStoreError('bad_request', 'the database refused a value in this request (e.g. a NUL character or an oversized value)', undefined, { cause: err });
  }
  throw new StateStoreError('capability_unavailable', 'state database unavailable', undefined, { cause: err });
}

const STORED_RESULTS: ReadonlySet<string> = new Set<WriteResult>(['ok', 'version_conflict', 'deleted', 'missing']);

type RecordedReadRow = {
  result: string;
  status: number | null;
  value: string | null;
  version: string | number | null;
  value_expires_at: string | number | null;
  replayed: boolean;
};

/** A row of orrery_state_get_recorded as the driver's outcome (a mismatch and a budget refusal thrown). */
function readOutcome(row: RecordedReadRow | undefined, claim: IdempotencyClaim, budget: number): ReadOutcome {
  if (row?.result === 'quota_namespace_bytes') throw quotaNamespaceBytes(budget);
  const replayed = row?.replayed === true;
  if (row?.result === 'found' && Number(row.status) === 200 && row.value !== null && row.version !== null) {
    const expiresAt = row.value_expires_at === null ? null : Number(row.value_expires_at);
    return { status: 200, entry: { value: row.value, version: Number(row.version), expiresAt }, replayed };
  }
  if (row?.result === 'missing' && Number(row.status) === 404) return { status: 404, entry: null, replayed };
  if (row?.result === 'idempotency_mismatch') throw idempotencyMismatch(claim.key);
  throw new StateStoreError('internal', 'orrery_state_get_recorded gave an unknown outcome', undefined, { cause: new Error(`orrery_state_get_recorded answered ${JSON.stringify(row)}`) });
}

/** A row of orrery_state_{set,delete}_idempotent as the driver's outcome (a mismatch thrown). */
function idempotentOutcome(row: IdempotentRow | undefined, claim: IdempotencyClaim, fn: string): WriteOutcome {
  if (row?.result === 'idempotency_mismatch') throw idempotencyMismatch(claim.key);
  if (!row || !STORED_RESULTS.has(row.result) || row.status === null) {
    throw new StateStoreError('internal', `${fn} gave an unknown outcome`, undefined, { cause: new Error(`${fn} answered ${JSON.stringify(row)}`) });
  }
  const version = row.result === 'ok' && row.new_version !== undefined && row.new_version !== null ? Number(row.new_version) : null;
  return { status: Number(row.status), result: row.result as WriteResult, version, replayed: row.replayed === true };
}

/**
 * Postgres driver (also runs on embedded PGlite). Lock order is always: idempotency row, then the
 * key's fence row (only for a write with a fence, FOR SHARE; migration 0007), then: namespace row (only
 * with a byte budget) → `<keyspace>#meta` row → entry row → the keyspace's change-feed head row
 * (migration 0005: taken last, held to the commit, so changes commit in `seq` order), so writers
 * never deadlock.
 * An in-place update of a live key changes no count and takes only the entry's row lock (in a
 * subtransaction rolled back when it writes nothing, so no entry lock is carried into the
 * `#meta` wait: migration 0004); everything that adds or removes a row holds the `#meta` row
 * FOR UPDATE for its transaction. Get, set, delete and keyspace deletion are each one
 * statement (set/delete/keyspace deletion call the plpgsql functions of migrations 0003/0004,
 * whose implicit transaction holds those locks). On Postgres, concurrent gets of a keyspace
 * share one statement (ReadBatcher) and concurrent plain overwrites one transaction
 * (WriteBatcher, migration 0008: entry rows in key order, then the head row).
 */
export class PostgresDriver implements StateDriver {
  readonly name = 'postgres' as const;
  private readonly now: () => number;
  /** Postgres only: single statements outside transactions run here (LIFO); transactions use `conn`'s pool. */
  private readonly statements: LifoStatementPool | undefined;
  /** Change-feed wake-ups: local watchers by `namespace/keyspace`, and the LISTEN connection (opened with the first watcher). */
  private readonly watchers = new ChangeWatchers();
  private listener: ReturnType<typeof postgres> | undefined;
  /** NOTIFYs in flight / wanted again per keyspace: at most one in flight each, however many writes. */
  private readonly notifying = new Set<string>();
  private readonly notifyAgain = new Set<string>();
  /** Marks this driver's own NOTIFYs, which its LISTEN connection hears too. */
  private readonly origin = randomBytes(6).toString('hex');
  private closed = false;
  /** Postgres only: concurrent reads of one keyspace share a statement. */
  private readonly reads: ReadBatcher<NsKs, Entry> | undefined;
  /** Postgres only: concurrent overwrites of one keyspace share a transaction (one WAL flush). */
  private readonly writes: WriteBatcher<NsKs, BatchedSet, SetRow> | undefined;

  constructor(
    private readonly conn: Connection,
    opts: { now?: () => number; statementConnections?: number; pipelineDepth?: number; batchReads?: boolean; batchWrites?: boolean } = {},
  ) {
    this.now = opts.now ?? Date.now;
    const url = conn.url;
    if (conn.pg && url && opts.statementConnections && opts.statementConnections > 0) {
      this.statements = new LifoStatementPool(
        opts.statementConnections,
        () => postgres(url, { max: 1, onnotice: () => {}, prepare: true }),
        opts.pipelineDepth ?? 1,
      );
    }
    if (conn.pg && opts.batchReads !== false) this.reads = new ReadBatcher({ load: (scope, keys) => this.loadEntries(scope, keys) });
    if (conn.pg && opts.batchWrites !== false) this.writes = new WriteBatcher({ load: (scope, writes) => this.setEntries(scope, writes) });
  }

  /**
   * One transaction for a batch of overwrites (orrery_state_set_batch). A key that is not live,
   * or a batch the database refused (e.g. one value with a NUL), answers RUN_ALONE, and that
   * write runs as its own statement, which gives it its own outcome. A batch of one is that
   * statement (orrery_state_set, which also creates) run here, so that it counts as the
   * keyspace's batch in flight and the writes arriving meanwhile wait to share the next one
   * (WriteBatcher's group commit); anything but 'ok' runs again alone for its own error.
   */
  private setEntries(scope: NsKs, writes: Array<{ key: string; write: BatchedSet }>): Promise<SetRow[]> {
    if (writes.length === 1) {
      // An error is the write's own (as when it runs alone); a refusal runs again alone for its error.
      return this.run<SetRow>(SET_ENTRY, writes[0]!.write.alone).then((rows) => [rows[0]?.result === 'ok' ? rows[0] : RUN_ALONE]);
    }
    const keys: string[] = [];
    const values: string[] = [];
    const bytes: number[] = [];
    const expires: Array<number | null> = [];
    for (const w of writes) {
      keys.push(w.key);
      values.push(w.write.value);
      bytes.push(w.write.bytes);
      expires.push(w.write.expiresAt);
    }
    return this.run<SetRow>(SET_BATCH, [scope.namespace, scope.keyspace, keys, values, bytes, expires, this.now()]).then(
      (rows) => (rows.length === writes.length ? rows : writes.map(() => RUN_ALONE)),
      (err: unknown) => {
        // Refused by the database (e.g. one value with a NUL): nothing of the batch committed, so
        // each write may run alone. A connection lost under the statement may have committed it:
        // running the writes again could apply them twice, so they fail as a lone write would.
        if (refusedByDatabase(err)) return writes.map(() => RUN_ALONE);
        throw err;
      },
    );
  }

  /** One statement for a batch of reads (ReadBatcher); one key uses the single-key statement. */
  private loadEntries(scope: NsKs, keys: string[]): Promise<Array<Entry | null>> {
    const now = this.now();
    if (keys.length === 1) return this.run<EntryRow>(GET_ENTRY, [scope.namespace, scope.keyspace, keys[0], now]).then((rows) => [firstEntry(rows)]);
    return this.run<KeyedEntryRow>(GET_ENTRIES, [scope.namespace, scope.keyspace, keys, now]).then((rows) => entriesOf(keys, rows));
  }

  private readonly dialect = new PgDialect();

  /**
   * Runs one statement. Outside a transaction on Postgres it goes straight to postgres.js as a
   * named prepared statement (drizzle's execute() re-parses every time: 2x slower on reads),
   * on the LIFO statement pool when there is one.
   */
  private async q<T>(ex: Exec, query: SQL): Promise<T[]> {
    const pg = this.conn.pg;
    if (pg && ex === this.conn.db) {
      const { sql: text, params } = this.dialect.sqlToQuery(query);
      if (this.statements) return this.statements.run<T>(text, params);
      return (await pg.unsafe(text, params as never[], { prepare: true })) as unknown as T[];
    }
    return this.conn.rows<T>(await ex.execute(query));
  }

  private async withDb<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      return unavailable(err);
    }
  }

  /**
   * Runs one hand-written statement outside any transaction: no query building on the hot path
   * (drizzle's sqlToQuery cost ~8 µs per request), a named prepared statement on Postgres.
   */
  private run<T>(text: string, params: unknown[]): Promise<T[]> {
    if (this.statements) return this.statements.run<T>(text, params);
    const pg = this.conn.pg;
    if (pg) return pg.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<T[]>;
    return this.pglite().query<T>(text, params).then(pgliteRows);
  }

  private pglite(): PgliteClient {
    return (this.conn.db as unknown as { $client: PgliteClient }).$client;
  }

  get(scope: Scope, key: string): Promise<Entry | null> {
    if (this.reads) return this.reads.get(`${scope.namespace}\0${scope.keyspace}`, scope, key).catch(unavailable);
    return this.run<EntryRow>(GET_ENTRY, [scope.namespace, scope.keyspace, key, this.now()]).then(firstEntry, unavailable);
  }

  async set(scope: Scope, key: string, value: string, opts: SetOptions = {}): Promise<{ version: number }> {
    return this.setCounted(scope, key, value, opts, { maxKeys: Infinity });
  }

  /**
   * One statement: `orrery_state_set` (migration 0003) locks the `#meta` row FOR UPDATE, checks
   * the CAS mode and the budgets and writes, all inside the statement's own transaction — the
   * same atomicity as a multi-statement transaction, in one round trip. An overwrite of a live
   * key takes only the entry's row lock, as before.
   */
  async setCounted(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget): Promise<{ version: number }> {
    const nsBudget = budget.namespaceByteBudget ?? 0;
    // A plain overwrite may share a transaction with concurrent ones (WriteBatcher); whatever the
    // batch could not write (a create, an expired key) runs alone below.
    const params = [scope.namespace, scope.keyspace, key, ...setArgs(value, opts, budget, this.now())];
    if (this.writes && opts.fence === undefined && opts.ifVersion === undefined && nsBudget <= 0) {
      // setArgs: [ns, ks, key, value, bytes, expiresAt, …]
      const row = await this.writes.submit(`${scope.namespace}\0${scope.keyspace}`, scope, key, { value, bytes: params[4] as number, expiresAt: params[5] as number | null, alone: params }).catch(unavailable);
      if (row.result === 'ok') {
        this.changed(scope);
        return { version: Number(row.new_version) };
      }
    }
    let rows: IdempotentRow[];
    try {
      // A fence goes through orrery_state_set_fenced (migration 0007). Under a byte budget the
      // retained idempotency outcomes count too: orrery_state_set_idempotent (with no claim) sums
      // them under the namespace lock (migration 0006).
      if (opts.fence !== undefined) rows = await this.run(SET_FENCED, [opts.fence, ...NO_IDEMPOTENCY, ...params]);
      else rows = await this.run(nsBudget > 0 ? SET_IDEMPOTENT : SET_ENTRY, nsBudget > 0 ? [...NO_IDEMPOTENCY, ...params] : params);
    } catch (err) {
      return unavailable(err);
    }
    const result = rows[0]?.result;
    if (result === 'fenced') throw fencedError(rows[0]!, key, opts.fence!);
    // A refused create may still have purged expired keys (their `expire` changes).
    if (result !== 'version_conflict') this.changed(scope);
    if (result === 'ok') return { version: Number(rows[0]!.new_version) };
    if (result === 'version_conflict') throw versionConflict(key, opts.ifVersion ?? 0);
    if (result === 'quota_keys') throw quotaKeys(budget.maxKeys);
    if (result === 'quota_namespace_bytes') throw quotaNamespaceBytes(nsBudget);
    throw new StateStoreError('internal', 'orrery_state_set gave an unknown outcome', undefined, { cause: new Error(`orrery_state_set answered ${String(result)}`) });
  }

  /** One statement: orrery_state_set_idempotent claims the key, writes and stores the outcome (migration 0006). */
  async setIdempotent(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget, claim: IdempotencyClaim): Promise<WriteOutcome> {
    const nsBudget = budget.namespaceByteBudget ?? 0;
    const row = await this.runIdempotent(opts.fence === undefined ? SET_IDEMPOTENT : SET_FENCED, scope, key, opts.fence, claim, setArgs(value, opts, budget, this.now()));
    if (row?.result === 'quota_keys') throw quotaKeys(budget.maxKeys);
    if (row?.result === 'quota_namespace_bytes') throw quotaNamespaceBytes(nsBudget);
    return idempotentOutcome(row, claim, 'orrery_state_set_idempotent');
  }

  /** One statement: orrery_state_delete_idempotent claims the key, deletes and stores the outcome (migration 0006). */
  async deleteIdempotent(scope: Scope, key: string, opts: DeleteOptions, claim: IdempotencyClaim): Promise<WriteOutcome> {
    const row = await this.runIdempotent(opts.fence === undefined ? DELETE_IDEMPOTENT : DELETE_FENCED, scope, key, opts.fence, claim, [opts.ifVersion ?? null, this.now()]);
    return idempotentOutcome(row, claim, 'orrery_state_delete_idempotent');
  }

  /**
   * One statement: orrery_state_get_recorded claims the key, reads the live entry and stores
   * what it found (migration 0009). Not batched with plain reads: each recorded read has its own
   * claim. It writes no change, so nothing is woken.
   */
  async getRecorded(scope: Scope, key: string, budget: RecordBudget, claim: IdempotencyClaim): Promise<ReadOutcome> {
    const nsBudget = budget.namespaceByteBudget ?? 0;
    let rows: RecordedReadRow[];
    try {
      rows = await this.run(GET_RECORDED, [
        claim.key,
        claim.requestHash,
        claim.retentionMs,
        idempotencyRecordBytes(claim.key),
        scope.namespace,
        scope.keyspace,
        key,
        nsBudget > 0 ? nsBudget : 0,
        this.now(),
      ]);
    } catch (err) {
      return unavailable(err);
    }
    return readOutcome(rows[0], claim, nsBudget);
  }

  /**
   * Runs an idempotent statement: its arguments open with the fence (the fenced variants only),
   * the claim and where the write goes, then the statement's own (`rest`). A fenced-off write
   * throws; anything but a replay wakes the change feed (a replay wrote nothing).
   */
  private async runIdempotent(statement: string, scope: Scope, key: string, fence: number | undefined, claim: IdempotencyClaim, rest: unknown[]): Promise<IdempotentRow | undefined> {
    let rows: IdempotentRow[];
    try {
      const fenceArg = fence === undefined ? [] : [fence];
      rows = await this.run(statement, [...fenceArg, claim.key, claim.requestHash, claim.retentionMs, idempotencyRecordBytes(claim.key), scope.namespace, scope.keyspace, key, ...rest]);
    } catch (err) {
      return unavailable(err);
    }
    const row = rows[0];
    if (row?.result === 'fenced') throw fencedError(row, key, fence!);
    if (!row?.replayed) this.changed(scope);
    return row;
  }

  /** Two reads, not one snapshot: a claim between them is at most off by one, fine for a summary. */
  async fenceSummary(scope: NsKs, limit: number): Promise<FenceSummary> {
    try {
      const [count, newest] = await Promise.all([
        this.run<{ n: string | number }>(FENCE_COUNT, [scope.namespace, scope.keyspace]),
        this.run<{ key: string; fence: string | number }>(NEWEST_FENCES, [scope.namespace, scope.keyspace, limit]),
      ]);
      return { keys: Number(count[0]?.n ?? 0), newest: newest.map((r) => ({ key: r.key, fence: Number(r.fence) })) };
    } catch (err) {
      return unavailable(err);
    }
  }

  async idempotencyUsage(scope: NsKs): Promise<IdempotencyUsage> {
    try {
      const rows = await this.run<{ records: string | number; bytes: string | number }>(IDEMPOTENCY_USAGE, [scope.namespace, scope.keyspace, this.now()]);
      return { records: Number(rows[0]?.records ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
    } catch (err) {
      return unavailable(err);
    }
  }

  /** One statement: `orrery_state_delete` locks `#meta`, checks `ifVersion`, deletes and counts. */
  async delete(scope: Scope, key: string, opts: DeleteOptions = {}): Promise<boolean> {
    let rows: IdempotentRow[];
    try {
      const args = [scope.namespace, scope.keyspace, key, opts.ifVersion ?? null, this.now()];
      rows = await this.run(opts.fence === undefined ? DELETE_ENTRY : DELETE_FENCED, opts.fence === undefined ? args : [opts.fence, ...NO_IDEMPOTENCY, ...args]);
    } catch (err) {
      return unavailable(err);
    }
    const result = rows[0]?.result;
    if (result === 'fenced') throw fencedError(rows[0]!, key, opts.fence!);
    if (result === 'version_conflict') throw versionConflict(key, opts.ifVersion ?? 0);
    // 'missing' may have removed an expired row (an `expire` change).
    this.changed(scope);
    return result === 'deleted';
  }

  /** One statement, an upsert (orrery_state_claim_fence, migration 0007): linearizable per key. */
  async claimFence(scope: NsKs, key: string): Promise<number> {
    try {
      const rows = await this.run<{ fence: string | number }>(CLAIM_FENCE, [scope.namespace, scope.keyspace, key]);
      return Number(rows[0]!.fence);
    } catch (err) {
      return unavailable(err);
    }
  }

  /** One statement: `orrery_state_delete_keyspace` removes the keyspace's fences, locks `#meta`, removes every row and the `#meta` row. */
  async deleteKeyspace(scope: NsKs): Promise<number> {
    try {
      const rows = await this.run<{ deleted: number }>(DELETE_KEYSPACE, [scope.namespace, scope.keyspace, this.now()]);
      this.changed(scope);
      return Number(rows[0]?.deleted ?? 0);
    } catch (err) {
      return unavailable(err);
    }
  }

  async list(scope: Scope, opts: ListOptions = {}): Promise<ListResult> {
    const limit = listLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    const prefix = opts.prefix ?? '';
    return this.withDb(async () => {
      const rows = await this.q<{ key: string }>(
        this.conn.db,
        sql`select key from state_entries
            where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} and ${liveAt(this.now())}
            ${after === undefined ? sql`` : sql`and key > ${after}`}
            ${prefix ? sql`and key >= ${prefix} and key < ${prefix + MAX_CHAR} and starts_with(key, ${prefix})` : sql``}
            order by key limit ${limit + 1}`,
      );
      const keys = rows.slice(0, limit).map((r) => r.key);
      return { keys, cursor: rows.length > limit ? encodeCursor(keys[keys.length - 1]!) : '' };
    });
  }

  async usage(scope: NsKs): Promise<Usage> {
    return this.withDb(async () => {
      const rows = await this.q<{ keys: string | number; bytes: string | number }>(
        this.conn.db,
        sql`select count(*) as keys, coalesce(sum(bytes), 0) as bytes from state_entries
            where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} and ${liveAt(this.now())}`,
      );
      return { keys: Number(rows[0]?.keys ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
    });
  }

  async namespaceUsage(namespace: string): Promise<NamespaceUsage> {
    return this.withDb(async () => {
      const rows = await this.q<{ keyspace: string; keys: string | number; bytes: string | number }>(
        this.conn.db,
        sql`select keyspace, count(*) as keys, coalesce(sum(bytes), 0) as bytes from state_entries
            where namespace = ${namespace} and ${liveAt(this.now())} group by keyspace order by keyspace`,
      );
      const keyspaces = rows.map((r) => ({ keyspace: r.keyspace, keys: Number(r.keys), bytes: Number(r.bytes) }));
      return { keys: keyspaces.reduce((a, k) => a + k.keys, 0), bytes: keyspaces.reduce((a, k) => a + k.bytes, 0), keyspaces };
    });
  }

  async namespaces(): Promise<string[]> {
    return this.withDb(async () =>
      (await this.q<{ namespace: string }>(this.conn.db, sql`select distinct namespace from state_meta order by namespace`)).map((r) => r.namespace),
    );
  }

  async sweepExpired(): Promise<number> {
    const now = this.now();
    return this.withDb(async () => {
      const candidates = await this.q<{ namespace: string; keyspace: string }>(
        this.conn.db,
        sql`select distinct namespace, keyspace from state_entries where expires_at is not null and expires_at <= ${now}`,
      );
      let total = 0;
      // One statement per keyspace (orrery_state_sweep, migration 0005): lock #meta, delete, count, record the `expire` changes.
      for (const s of candidates) {
        const n = Number((await this.run<{ n: number }>(SWEEP_KEYSPACE, [s.namespace, s.keyspace, now]))[0]?.n ?? 0);
        if (n > 0) this.changed(s);
        total += n;
      }
      total += await this.sweepIdempotency(now);
      return total;
    });
  }

  /** Idempotency outcomes past their retention; one statement that holds no other lock (migration 0006). */
  private async sweepIdempotency(now: number): Promise<number> {
    const rows = await this.run<{ n: string | number }>(SWEEP_IDEMPOTENCY, [now]);
    return Number(rows[0]?.n ?? 0);
  }

  async metaCount(scope: NsKs): Promise<number> {
    const rows = await this.q<{ keys: number }>(
      this.conn.db,
      sql`select keys from state_meta where namespace = ${scope.namespace} and keyspace = ${scope.keyspace}`,
    );
    return rows[0]?.keys ?? 0;
  }

  async ping(): Promise<void> {
    await this.withDb(() => this.conn.db.execute(sql`select 1`));
  }

  async changes(scope: NsKs, opts: ChangesOptions): Promise<ChangesPage> {
    const limit = opts.limit ?? DEFAULT_CHANGES_LIMIT;
    try {
      const rows = await this.run<ChangeRow>(CHANGES_PAGE, [scope.namespace, scope.keyspace, opts.since, limit, opts.prefix ?? '']);
      return changesPage(rows, opts, limit);
    } catch (err) {
      return unavailable(err);
    }
  }

  async changeWindow(scope: NsKs): Promise<ChangeWindow> {
    try {
      const rows = await this.run<{ seq: string | number; low: string | number }>(CHANGE_WINDOW, [scope.namespace, scope.keyspace]);
      return { low: Number(rows[0]?.low ?? 0), head: Number(rows[0]?.seq ?? 0) };
    } catch (err) {
      return unavailable(err);
    }
  }

  watchChanges(scope: NsKs, wake: () => void): () => void {
    const unwatch = this.watchers.add(`${scope.namespace}/${scope.keyspace}`, wake);
    this.listen();
    return unwatch;
  }


  /**
   * Hears the other replicas' writes (Postgres only: PGlite is one process). One connection of
   * its own, opened with the first watcher and kept until close; postgres.js re-listens after a
   * reconnect. Notifications lost meanwhile only delay readers until their next poll.
   */
  private listen(): void {
    const url = this.conn.url;
    if (!this.conn.pg || !url || this.listener || this.closed) return;
    const client = postgres(url, { max: 1, onnotice: () => {} });
    this.listener = client;
    client
      .listen(CHANGES_CHANNEL, (payload) => {
        const space = payload.indexOf(' ');
        if (space > 0 && payload.slice(0, space) !== this.origin) this.watchers.wakeSoon(payload.slice(space + 1));
      })
      .catch(() => {
        // Not listening (database unreachable): try again with the next watcher; readers poll meanwhile.
        if (this.listener === client) this.listener = undefined;
        void client.end({ timeout: 1 }).catch(() => undefined);
      });
  }

  /** After a write that may have recorded changes: wake local watchers, and tell the other replicas. */
  private changed(scope: NsKs): void {
    const id = `${scope.namespace}/${scope.keyspace}`;
    this.watchers.wakeSoon(id);
    if (this.conn.pg) this.notifyOthers(id);
  }

  /**
   * NOTIFY in a statement of its own after the write (orrery_state_changes_wake: no WAL flush
   * wait), never inside it: Postgres holds a global lock from a notifying transaction's
   * pre-commit to its end, which would serialise the writes of every keyspace. Coalesced to one
   * in flight per keyspace; a failure is ignored (readers poll).
   */
  private notifyOthers(id: string): void {
    if (this.closed) return;
    if (this.notifying.has(id)) {
      this.notifyAgain.add(id);
      return;
    }
    this.notifying.add(id);
    this.run(WAKE, [`${this.origin} ${id}`])
      .catch(() => undefined)
      .finally(() => {
        this.notifying.delete(id);
        if (this.notifyAgain.delete(id)) this.notifyOthers(id);
      });
  }

  async pruneChanges(retention: ChangeRetention): Promise<number> {
    if (retention.maxAgeMs <= 0 && retention.maxEvents <= 0) return 0;
    const cutoff = retention.maxAgeMs > 0 ? this.now() - retention.maxAgeMs : null;
    try {
      let total = 0;
      // One statement per keyspace, so a writer waits for one keyspace's prune at most.
      for (const h of await this.run<{ namespace: string; keyspace: string }>(CHANGE_HEADS, [])) {
        total += Number((await this.run<{ n: number }>(PRUNE_CHANGES, [h.namespace, h.keyspace, retention.maxEvents, cutoff]))[0]?.n ?? 0);
      }
      return total;
    } catch (err) {
      return unavailable(err);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = undefined;
    await Promise.all([this.statements?.end(), this.conn.close(), listener?.end({ timeout: 5 })]);
  }
}
