import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { type Connection, migrate } from '@orrery/db';
import type { Resource, ResourceKind } from '@orrery/spec';
import { assertKind, checkRevisionWrite, parseForApply, parseStatus } from './apply-checks.ts';
import { applyLookupFor } from './apply-lookup.ts';
import { nextGeneration } from './generation.ts';
import { type ResourceRow, clientMetadata, rowToResource } from './object.ts';
import { type FeedEventRow, type FeedWatch, KindWatchFeed } from './kind-watch-feed.ts';
import { watchEnding } from './watch-ending.ts';
import {
  type ApplyOptions,
  type ListOptions,
  type ListResult,
  type ResourceStore,
  StoreError,
  type Watch,
  type WatchEvent,
  type WatchEventType,
  type WatchOptions,
} from './types.ts';

// One lock for every write: commit order then equals resourceVersion order, so a watcher that
// reads "events after N" can never miss a lower revision committed later. Control-plane writes
// are rare enough for this to cost nothing.
const WRITE_LOCK = 0x6f_72_72_79;
const NOTIFY_CHANNEL = 'orrery_resources';
const WATCH_BATCH = 500;

export interface LocalStoreOptions {
  /** Events kept for watch resumption beyond which `sinceResourceVersion` answers `expired`. */
  retainEvents?: number;
  /** Compact the event history every this many writes (default 500). */
  compactEvery?: number;
  /** Safety poll for watches (ms) in case a notification is lost. */
  pollMs?: number;
  /** Skip migrations (the caller ran them). */
  skipMigrate?: boolean;
}

/**
 * The resource store on the embedded database (PGlite) or Postgres. Watches are fed by an
 * in-process signal after each write and, on Postgres, by LISTEN/NOTIFY so several processes
 * can share one database (see docs/store.md).
 */
export async function createLocalStore(conn: Connection, opts: LocalStoreOptions = {}): Promise<ResourceStore> {
  if (!opts.skipMigrate) await migrate(conn);
  const retain = opts.retainEvents ?? 10_000;
  const pollMs = opts.pollMs ?? 1000;
  const compactEvery = opts.compactEvery ?? 500;
  const signal = new EventEmitter();
  signal.setMaxListeners(0);
  const db = conn.db;
  let writes = 0;
  let closed = false;

  let listener: postgres.Sql | undefined;
  if (conn.kind === 'postgres' && conn.url) {
    listener = postgres(conn.url, { max: 1, onnotice: () => {} });
    await listener.listen(NOTIFY_CHANNEL, (kind) => signal.emit('change', kind));
  }

  const rows = <T>(r: unknown) => conn.rows<T>(r);

  async function getRow(kind: string, namespace: string, name: string, forUpdate = false, tx = db): Promise<ResourceRow | undefined> {
    const r = await tx.execute(sql`
      select kind, namespace, name, uid, resource_version as "resourceVersion", generation, metadata, spec, status, created_at as "createdAt"
      from orrery_resources where kind = ${kind} and namespace = ${namespace} and name = ${name}
      ${forUpdate ? sql`for update` : sql``}`);
    const row = rows<ResourceRow>(r)[0];
    return row ? { ...row, resourceVersion: Number(row.resourceVersion) } : undefined;
  }

  /** Runs a write under the global lock; returns the result and the kind to signal. */
  async function write<T>(kind: string, fn: (tx: typeof db, nextRv: () => Promise<number>) => Promise<T>): Promise<T> {
    if (closed) throw new StoreError('unavailable', 'the store is closed');
    const result = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${WRITE_LOCK})`);
      const nextRv = async () => {
        const r = await tx.execute(sql`select nextval(pg_get_serial_sequence('orrery_resource_events', 'resource_version')) as rv`);
        return Number(rows<{ rv: string }>(r)[0]!.rv);
      };
      const out = await fn(tx, nextRv);
      if (conn.kind === 'postgres') await tx.execute(sql`select pg_notify(${NOTIFY_CHANNEL}, ${kind})`);
      return out;
    });
    signal.emit('change', kind);
    if (++writes % compactEvery === 0) void compact().catch(() => {});
    return result;
  }

  async function recordEvent(tx: typeof db, rv: number, type: WatchEventType, object: Resource): Promise<void> {
    const m = object.metadata;
    await tx.execute(sql`
      insert into orrery_resource_events (resource_version, kind, namespace, name, type, object)
      values (${rv}, ${object.kind}, ${m.namespace}, ${m.name}, ${type}, ${JSON.stringify(object)}::jsonb)`);
  }

  async function compact(): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${WRITE_LOCK})`);
      const r = await tx.execute(sql`select coalesce(max(resource_version), 0) as max from orrery_resource_events`);
      const cut = Number(rows<{ max: string }>(r)[0]!.max) - retain;
      if (cut <= 0) return;
      await tx.execute(sql`delete from orrery_resource_events where resource_version <= ${cut}`);
      await tx.execute(sql`
        insert into orrery_store_state (key, value) values ('compacted_rv', ${cut})
        on conflict (key) do update set value = greatest(orrery_store_state.value, excluded.value)`);
    });
  }

  async function currentRv(): Promise<number> {
    const r = await db.execute(sql`select coalesce(max(resource_version), 0) as max from orrery_resource_events`);
    return Number(rows<{ max: string }>(r)[0]!.max);
  }

  /**
   * The lookup of the Function rules, read inside the write's transaction (under the global write
   * lock): two applies declaring one keyspace at once cannot both see it free.
   */
  async function applyLookup(obj: unknown, tx: typeof db) {
    const o = obj as { kind?: unknown; metadata?: { namespace?: unknown; name?: unknown } } | null;
    return applyLookupFor(obj, {
      getEnvironment: async (ns, name) => {
        const row = await getRow('Environment', ns, name, false, tx);
        return row ? rowToResource(row) : undefined;
      },
      listFunctions: async (ns) => {
        const r = await tx.execute(sql`
          select kind, namespace, name, uid, resource_version as "resourceVersion", generation, metadata, spec, status, created_at as "createdAt"
          from orrery_resources where kind = 'Function' and namespace = ${ns}`);
        return rows<ResourceRow>(r).map((row) => rowToResource({ ...row, resourceVersion: Number(row.resourceVersion) }));
      },
      getPrevious: async () => {
        if (typeof o?.metadata?.name !== 'string') return undefined;
        const row = await getRow('Function', typeof o.metadata.namespace === 'string' ? o.metadata.namespace : 'default', o.metadata.name, false, tx);
        return row ? rowToResource(row) : undefined;
      },
    });
  }

  /** One reader per watched kind (kind-watch-feed.ts), with its write signal and safety poll. */
  const feeds = new Map<string, KindWatchFeed>();
  function feedOf(kind: string): KindWatchFeed {
    const existing = feeds.get(kind);
    if (existing) return existing;
    const onChange = (k: string) => {
      if (k === kind) void feed.pump();
    };
    const timer = setInterval(() => void feed.pump(), pollMs);
    timer.unref();
    const feed = new KindWatchFeed({
      read: async (afterRv, limit) =>
        rows<FeedEventRow>(
          await db.execute(sql`
            select resource_version, namespace, type, object from orrery_resource_events
            where kind = ${kind} and resource_version > ${afterRv}
            order by resource_version limit ${limit}`),
        ),
      currentRv,
      batch: WATCH_BATCH,
      closed: () => closed,
      onEmpty: () => {
        signal.off('change', onChange);
        clearInterval(timer);
        feeds.delete(kind);
      },
    });
    signal.on('change', onChange);
    feeds.set(kind, feed);
    return feed;
  }

  const store: ResourceStore = {
    async list(kind: ResourceKind, o: ListOptions = {}): Promise<ListResult> {
      assertKind(kind);
      // Read the revision first: anything written after it shows up again in a watch from it.
      const rv = await currentRv();
      // Labels are matched in SQL too (jsonb containment; the text cast keeps the parameter a string
      // on both drivers): a Function's Revisions are listed by label on every reconcile, and
      // matching only in JavaScript decoded every Revision of the namespace on the operator's
      // thread to keep a few. The JavaScript check below stays the definition.
      // Only string values go to SQL: JSON drops an undefined value (as `label=k` once arrived from
      // the HTTP surface, which now refuses it), so the JavaScript check alone decides those.
      const labelled = o.labels !== undefined && Object.keys(o.labels).length > 0 && Object.values(o.labels).every((v) => typeof v === 'string');
      const r = await db.execute(sql`
        select kind, namespace, name, uid, resource_version as "resourceVersion", generation, metadata, spec, status, created_at as "createdAt"
        from orrery_resources where kind = ${kind} ${o.namespace ? sql`and namespace = ${o.namespace}` : sql``}
        ${labelled ? sql`and metadata->'labels' @> ${JSON.stringify(o.labels)}::text::jsonb` : sql``}
        order by namespace, name`);
      let items = rows<ResourceRow>(r).map((row) => rowToResource({ ...row, resourceVersion: Number(row.resourceVersion) }));
      if (o.labels) items = items.filter((it) => matchesLabels(it, o.labels!));
      return { items, resourceVersion: rv };
    },

    async get(kind, namespace, name) {
      assertKind(kind);
      const row = await getRow(kind, namespace, name);
      return row ? rowToResource(row) : undefined;
    },

    async apply(obj: unknown, o: ApplyOptions = {}) {
      // The schema alone first: a bad manifest never takes the write lock.
      const { kind } = parseForApply(obj);
      return write(kind, async (tx, nextRv) => {
        const res = parseForApply(obj, await applyLookup(obj, tx));
        const { name, namespace } = res.metadata;
        const meta = clientMetadata(res.metadata);
        const prev = await getRow(kind, namespace, name, true, tx);
        if (o.resourceVersion !== undefined && String(prev?.resourceVersion ?? '') !== o.resourceVersion) {
          throw new StoreError('conflict', `${kind}/${namespace}/${name} was modified (have resourceVersion ${o.resourceVersion}, stored ${prev?.resourceVersion ?? 'none'}): read it again and retry`);
        }
        checkRevisionWrite(res, prev, o);
        if (prev && isDeepStrictEqual(prev.spec, res.spec) && isDeepStrictEqual(prev.metadata, meta)) {
          return rowToResource(prev); // nothing changed: no event, no new revision
        }
        const rv = await nextRv();
        const row: ResourceRow = {
          kind,
          namespace,
          name,
          uid: prev?.uid ?? randomUUID(),
          resourceVersion: rv,
          generation: nextGeneration(prev, res.spec),
          metadata: meta,
          spec: res.spec,
          status: prev?.status ?? null,
          createdAt: prev?.createdAt ?? new Date(),
        };
        await tx.execute(sql`
          insert into orrery_resources (kind, namespace, name, uid, resource_version, generation, metadata, spec, status, created_at)
          values (${kind}, ${namespace}, ${name}, ${row.uid}, ${rv}, ${row.generation}, ${JSON.stringify(meta)}::jsonb,
                  ${JSON.stringify(res.spec)}::jsonb, ${row.status === null ? null : JSON.stringify(row.status)}::jsonb, ${toIso(row.createdAt)})
          on conflict (kind, namespace, name) do update set resource_version = excluded.resource_version,
            generation = excluded.generation, metadata = excluded.metadata, spec = excluded.spec`);
        const out = rowToResource(row);
        await recordEvent(tx, rv, prev ? 'modified' : 'added', out);
        return out;
      });
    },

    async updateStatus(kind, namespace, name, status, o = {}) {
      assertKind(kind);
      return write(kind, async (tx, nextRv) => {
        const prev = await getRow(kind, namespace, name, true, tx);
        if (!prev) throw new StoreError('not_found', `${kind} ${namespace}/${name} not found`);
        if (o.resourceVersion !== undefined && String(prev.resourceVersion) !== o.resourceVersion) {
          throw new StoreError('conflict', `${kind}/${namespace}/${name} was modified since resourceVersion ${o.resourceVersion}: read it again and retry`);
        }
        const parsedStatus = parseStatus(rowToResource(prev), status);
        if (isDeepStrictEqual(prev.status, parsedStatus)) return rowToResource(prev);
        const rv = await nextRv();
        await tx.execute(sql`
          update orrery_resources set status = ${JSON.stringify(parsedStatus)}::jsonb, resource_version = ${rv}
          where kind = ${kind} and namespace = ${namespace} and name = ${name}`);
        const out = rowToResource({ ...prev, status: parsedStatus, resourceVersion: rv });
        await recordEvent(tx, rv, 'modified', out);
        return out;
      });
    },

    async delete(kind, namespace, name, o = {}) {
      assertKind(kind);
      return write(kind, async (tx, nextRv) => {
        const prev = await getRow(kind, namespace, name, true, tx);
        if (!prev) return false;
        if (o.resourceVersion !== undefined && String(prev.resourceVersion) !== o.resourceVersion) {
          throw new StoreError('conflict', `${kind}/${namespace}/${name} was modified since resourceVersion ${o.resourceVersion}`);
        }
        await tx.execute(sql`delete from orrery_resources where kind = ${kind} and namespace = ${namespace} and name = ${name}`);
        const rv = await nextRv();
        await recordEvent(tx, rv, 'deleted', rowToResource({ ...prev, resourceVersion: rv }));
        return true;
      });
    },

    watch(kind: ResourceKind, o: WatchOptions, onEvent: (e: WatchEvent) => void): Watch {
      assertKind(kind);
      const feed = feedOf(kind);
      const w: FeedWatch = {
        namespace: o.namespace,
        cursor: o.sinceResourceVersion,
        onEvent,
        ending: watchEnding(() => feed.remove(w)),
      };
      const stop = (err?: unknown) => w.ending.end(err);
      void (async () => {
        if (o.sinceResourceVersion !== undefined) {
          const r = await db.execute(sql`select value from orrery_store_state where key = 'compacted_rv'`);
          const compacted = Number(rows<{ value: string }>(r)[0]?.value ?? 0);
          if (o.sinceResourceVersion < compacted) {
            stop(new StoreError('expired', `resourceVersion ${o.sinceResourceVersion} is older than the retained history (${compacted}): list again and watch from the list's resourceVersion`));
            return;
          }
        }
        if (!w.ending.ended) feed.add(w);
      })().catch((err) => stop(err));
      return { close: () => stop(), done: w.ending.done };
    },

    async close() {
      if (closed) return;
      closed = true;
      signal.emit('close');
      signal.removeAllListeners();
      if (listener) await listener.end({ timeout: 2 });
    },
  };
  return store;
}

function matchesLabels(obj: Resource, labels: Record<string, string>): boolean {
  const have = obj.metadata.labels ?? {};
  return Object.entries(labels).every(([k, v]) => have[k] === v);
}

function toIso(d: Date | string): string {
  return d instanceof Date ? d.toISOString() : d;
}
