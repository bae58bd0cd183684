import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import type { Connection } from '@orrery/db';
import { quotaKeys, quotaNamespaceBytes, StateStoreError, versionConflict } from './errors.ts';
import { decodeCursor, encodeCursor, listLimit, MAX_CHAR } from './key-order.ts';
import { LifoStatementPool } from './lifo-statement-pool.ts';
import type { Entry, ListOptions, ListResult, NamespaceUsage, Scope, SetOptions, StateDriver, Usage, WriteBudget } from './types.ts';

type Exec = { execute(q: SQL): Promise<unknown> };
type NsKs = Pick<Scope, 'namespace' | 'keyspace'>;

const liveAt = (now: number) => sql`(expires_at is null or expires_at > ${now})`;

// The hot statements as fixed text (prepared once per connection). The functions are created by
// packages/db/drizzle/0003_state_functions.sql (orrery_state_set as replaced by 0004), which argue their atomicity.
const GET_ENTRY =
  'select value, version, expires_at from state_entries where namespace = $1 and keyspace = $2 and key = $3 and (expires_at is null or expires_at > $4)';
const SET_ENTRY = 'select result, new_version from orrery_state_set($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
const DELETE_ENTRY = 'select result from orrery_state_delete($1, $2, $3, $4, $5)';
const DELETE_KEYSPACE = 'select deleted from orrery_state_delete_keyspace($1, $2, $3)';

type EntryRow = { value: string; version: string | number; expires_at: string | number | null };
/** The slice of PGlite's client this driver uses (embedded mode has no postgres.js). */
type PgliteClient = { query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }> };

// Module functions rather than per-call closures: cheaper on the hot path (see read-body.ts in statesvc).
function pgliteRows<T>(r: { rows: T[] }): T[] {
  return r.rows;
}

function firstEntry(rows: EntryRow[]): Entry | null {
  const r = rows[0];
  return r ? { value: r.value, version: Number(r.version), expiresAt: r.expires_at === null ? null : Number(r.expires_at) } : null;
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
function unavailable(err: unknown): never {
  if (err instanceof StateStoreError) throw err;
  const state = sqlState(err);
  if (state !== undefined && (state.startsWith('22') || state.startsWith('54'))) {
    throw new StateStoreError('bad_request', 'the database refused a value in this request (e.g. a NUL character or an oversized value)', undefined, { cause: err });
  }
  throw new StateStoreError('capability_unavailable', 'state database unavailable', undefined, { cause: err });
}

/**
 * Postgres driver (also runs on embedded PGlite). Lock order is always: namespace row (only
 * with a byte budget) → `<keyspace>#meta` row → entry row, so writers never deadlock.
 * An in-place update of a live key changes no count and takes only the entry's row lock (in a
 * subtransaction rolled back when it writes nothing, so no entry lock is carried into the
 * `#meta` wait: migration 0004); everything that adds or removes a row holds the `#meta` row
 * FOR UPDATE for its transaction. Get, set, delete and keyspace deletion are each one
 * statement (set/delete/keyspace deletion call the plpgsql functions of migrations 0003/0004,
 * whose implicit transaction holds those locks).
 */
export class PostgresDriver implements StateDriver {
  readonly name = 'postgres' as const;
  private readonly now: () => number;
  /** Postgres only: single statements outside transactions run here (LIFO); transactions use `conn`'s pool. */
  private readonly statements: LifoStatementPool | undefined;

  constructor(
    private readonly conn: Connection,
    opts: { now?: () => number; statementConnections?: number; pipelineDepth?: number } = {},
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
    const now = this.now();
    const expiresAt = opts.ttlMs && opts.ttlMs > 0 ? now + opts.ttlMs : null;
    const nsBudget = budget.namespaceByteBudget ?? 0;
    const params = [
      scope.namespace,
      scope.keyspace,
      key,
      value,
      Buffer.byteLength(value, 'utf8'),
      expiresAt,
      opts.ifVersion ?? null,
      Number.isFinite(budget.maxKeys) ? budget.maxKeys : null,
      nsBudget > 0 ? nsBudget : 0,
      now,
    ];
    let rows: Array<{ result: string; new_version: string | number | null }>;
    try {
      rows = await this.run(SET_ENTRY, params);
    } catch (err) {
      return unavailable(err);
    }
    const result = rows[0]?.result;
    if (result === 'ok') return { version: Number(rows[0]!.new_version) };
    if (result === 'version_conflict') throw versionConflict(key, opts.ifVersion ?? 0);
    if (result === 'quota_keys') throw quotaKeys(budget.maxKeys);
    if (result === 'quota_namespace_bytes') throw quotaNamespaceBytes(nsBudget);
    throw new StateStoreError('internal', 'orrery_state_set gave an unknown outcome', undefined, { cause: new Error(`orrery_state_set answered ${String(result)}`) });
  }

  /** Locks (creating if needed) the `<keyspace>#meta` row inside `tx` and returns its count. */
  private async lockMeta(tx: Exec, s: NsKs): Promise<number> {
    const rows = await this.q<{ keys: number }>(tx, sql`select orrery_state_lock_meta(${s.namespace}, ${s.keyspace}) as keys`);
    return rows[0]!.keys;
  }

  private async writeMeta(tx: Exec, s: NsKs, keys: number): Promise<void> {
    await tx.execute(sql`update state_meta set keys = ${keys} where namespace = ${s.namespace} and keyspace = ${s.keyspace}`);
  }

  /** One statement: `orrery_state_delete` locks `#meta`, checks `ifVersion`, deletes and counts. */
  async delete(scope: Scope, key: string, opts: { ifVersion?: number } = {}): Promise<boolean> {
    let rows: Array<{ result: string }>;
    try {
      rows = await this.run(DELETE_ENTRY, [scope.namespace, scope.keyspace, key, opts.ifVersion ?? null, this.now()]);
    } catch (err) {
      return unavailable(err);
    }
    const result = rows[0]?.result;
    if (result === 'version_conflict') throw versionConflict(key, opts.ifVersion ?? 0);
    return result === 'deleted';
  }

  /** One statement: `orrery_state_delete_keyspace` locks `#meta`, removes every row and the `#meta` row. */
  async deleteKeyspace(scope: NsKs): Promise<number> {
    try {
      const rows = await this.run<{ deleted: number }>(DELETE_KEYSPACE, [scope.namespace, scope.keyspace, this.now()]);
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
      for (const s of candidates) {
        total += await this.conn.db.transaction(async (tx) => {
          const count = await this.lockMeta(tx, s);
          const purged = await this.q<{ key: string }>(
            tx,
            sql`delete from state_entries where namespace = ${s.namespace} and keyspace = ${s.keyspace}
                and expires_at is not null and expires_at <= ${now} returning key`,
          );
          if (purged.length) await this.writeMeta(tx, s, count - purged.length);
          return purged.length;
        });
      }
      return total;
    });
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

  async close(): Promise<void> {
    await Promise.all([this.statements?.end(), this.conn.close()]);
  }
}
