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

/** The `#namespace` meta row is the lock held by writes while a namespace byte budget applies. */
const NAMESPACE_LOCK_ROW = '#namespace';

const liveAt = (now: number) => sql`(expires_at is null or expires_at > ${now})`;

/**
 * Postgres driver (also runs on embedded PGlite). Lock order is always: namespace row (only
 * with a byte budget) → `<keyspace>#meta` row → entry row, so writers never deadlock.
 * An in-place update of a live key changes no count and takes only the entry's row lock;
 * everything that adds or removes a row holds the `#meta` row FOR UPDATE for its transaction.
 */
export class PostgresDriver implements StateDriver {
  readonly name = 'postgres' as const;
  private readonly now: () => number;
  /** Postgres only: single statements outside transactions run here (LIFO); transactions use `conn`'s pool. */
  private readonly statements: LifoStatementPool | undefined;

  constructor(
    private readonly conn: Connection,
    opts: { now?: () => number; statementConnections?: number } = {},
  ) {
    this.now = opts.now ?? Date.now;
    const url = conn.url;
    if (conn.pg && url && opts.statementConnections && opts.statementConnections > 0) {
      this.statements = new LifoStatementPool(opts.statementConnections, () => postgres(url, { max: 1, onnotice: () => {}, prepare: true }));
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
      if (err instanceof StateStoreError) throw err;
      throw new StateStoreError('capability_unavailable', `state database unavailable: ${(err as Error).message}`);
    }
  }

  async get(scope: Scope, key: string): Promise<Entry | null> {
    return this.withDb(async () => {
      const rows = await this.q<{ value: string; version: string | number; expires_at: string | number | null }>(
        this.conn.db,
        sql`select value, version, expires_at from state_entries
            where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} and key = ${key} and ${liveAt(this.now())}`,
      );
      const r = rows[0];
      return r ? { value: r.value, version: Number(r.version), expiresAt: r.expires_at === null ? null : Number(r.expires_at) } : null;
    });
  }

  async set(scope: Scope, key: string, value: string, opts: SetOptions = {}): Promise<{ version: number }> {
    return this.setCounted(scope, key, value, opts, { maxKeys: Infinity });
  }

  async setCounted(scope: Scope, key: string, value: string, opts: SetOptions, budget: WriteBudget): Promise<{ version: number }> {
    const now = this.now();
    const bytes = Buffer.byteLength(value, 'utf8');
    const expiresAt = opts.ttlMs && opts.ttlMs > 0 ? now + opts.ttlMs : null;
    const nsBudget = budget.namespaceByteBudget ?? 0;
    return this.withDb(async () => {
      // Fast path: overwrite of a live key (count unchanged). Atomic on the entry row alone.
      if (opts.ifVersion !== 0 && nsBudget <= 0) {
        const updated = await this.q<{ version: string | number }>(
          this.conn.db,
          sql`update state_entries set value = ${value}, bytes = ${bytes}, version = nextval('state_version_seq'), expires_at = ${expiresAt}
              where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} and key = ${key} and ${liveAt(now)}
              ${opts.ifVersion === undefined ? sql`` : sql`and version = ${opts.ifVersion}`}
              returning version`,
        );
        if (updated[0]) return { version: Number(updated[0].version) };
        // A live key at another version is a conflict without further work.
        if (opts.ifVersion !== undefined) {
          const cur = await this.get(scope, key);
          if (cur) throw versionConflict(key, opts.ifVersion);
        }
      }
      return this.conn.db.transaction(async (tx) => {
        if (nsBudget > 0) await this.lockMeta(tx, { namespace: scope.namespace, keyspace: NAMESPACE_LOCK_ROW });
        let count = await this.lockMeta(tx, scope);
        const rows = await this.q<{ version: string | number; bytes: number; expires_at: string | number | null }>(
          tx,
          sql`select version, bytes, expires_at from state_entries
              where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} and key = ${key} for update`,
        );
        const old = rows[0];
        const isLive = old !== undefined && (old.expires_at === null || Number(old.expires_at) > now);
        if (opts.ifVersion !== undefined) {
          if (opts.ifVersion === 0 ? isLive : !isLive || Number(old.version) !== opts.ifVersion) throw versionConflict(key, opts.ifVersion);
        }
        if (!old && count + 1 > budget.maxKeys) {
          // Expired keys stop counting at once: purge them under the lock, then re-check.
          const purged = await this.q<{ key: string }>(
            tx,
            sql`delete from state_entries where namespace = ${scope.namespace} and keyspace = ${scope.keyspace}
                and expires_at is not null and expires_at <= ${now} returning key`,
          );
          count -= purged.length;
          if (count + 1 > budget.maxKeys) {
            if (purged.length > 0) await this.writeMeta(tx, scope, count);
            throw quotaKeys(budget.maxKeys);
          }
        }
        if (nsBudget > 0) {
          const used = await this.q<{ bytes: string | number }>(
            tx,
            sql`select coalesce(sum(bytes), 0) as bytes from state_entries
                where namespace = ${scope.namespace} and ${liveAt(now)} and not (keyspace = ${scope.keyspace} and key = ${key})`,
          );
          if (Number(used[0]?.bytes ?? 0) + bytes > nsBudget) throw quotaNamespaceBytes(nsBudget);
        }
        const written = await this.q<{ version: string | number }>(
          tx,
          sql`insert into state_entries (namespace, keyspace, key, value, bytes, version, expires_at)
              values (${scope.namespace}, ${scope.keyspace}, ${key}, ${value}, ${bytes}, nextval('state_version_seq'), ${expiresAt})
              on conflict (namespace, keyspace, key) do update set value = excluded.value, bytes = excluded.bytes,
                version = excluded.version, expires_at = excluded.expires_at
              returning version`,
        );
        if (!old) await this.writeMeta(tx, scope, count + 1);
        return { version: Number(written[0]!.version) };
      });
    });
  }

  /** Locks (creating if needed) the `<keyspace>#meta` row and returns its count. */
  private async lockMeta(tx: Exec, s: NsKs): Promise<number> {
    const select = () =>
      this.q<{ keys: number }>(tx, sql`select keys from state_meta where namespace = ${s.namespace} and keyspace = ${s.keyspace} for update`);
    let rows = await select();
    if (!rows[0]) {
      await tx.execute(sql`insert into state_meta (namespace, keyspace, keys) values (${s.namespace}, ${s.keyspace}, 0) on conflict do nothing`);
      rows = await select();
    }
    return rows[0]!.keys;
  }

  private async writeMeta(tx: Exec, s: NsKs, keys: number): Promise<void> {
    await tx.execute(sql`update state_meta set keys = ${keys} where namespace = ${s.namespace} and keyspace = ${s.keyspace}`);
  }

  async delete(scope: Scope, key: string, opts: { ifVersion?: number } = {}): Promise<boolean> {
    const now = this.now();
    return this.withDb(() =>
      this.conn.db.transaction(async (tx) => {
        const meta = await this.q<{ keys: number }>(
          tx,
          sql`select keys from state_meta where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} for update`,
        );
        // Rows are only ever inserted together with their #meta row: no meta, no rows.
        if (!meta[0]) return false;
        const rows = await this.q<{ version: string | number; expires_at: string | number | null }>(
          tx,
          sql`select version, expires_at from state_entries
              where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} and key = ${key} for update`,
        );
        const row = rows[0];
        if (!row) return false;
        const isLive = row.expires_at === null || Number(row.expires_at) > now;
        if (isLive && opts.ifVersion !== undefined && Number(row.version) !== opts.ifVersion) throw versionConflict(key, opts.ifVersion);
        await tx.execute(sql`delete from state_entries where namespace = ${scope.namespace} and keyspace = ${scope.keyspace} and key = ${key}`);
        await this.writeMeta(tx, scope, meta[0].keys - 1);
        return isLive;
      }),
    );
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
