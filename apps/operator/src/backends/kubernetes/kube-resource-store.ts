import { isDeepStrictEqual } from 'node:util';
import { GROUP_VERSION, type Resource, type ResourceKind } from '@orrery/spec';
import {
  type ApplyOptions,
  type ListOptions,
  type ListResult,
  type ResourceStore,
  StoreError,
  type Watch,
  type WatchEvent,
  assertKind,
  applyLookupFor,
  checkRevisionWrite,
  parseForApply,
  parseStatus,
  watchEnding,
} from '@orrery/store';
import { collectionPath, resourceFor } from './api-resources.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { isIdleTimeout, newWatch } from './watch-stream.ts';
import { watchRestartDelay } from './watch-restart-delay.ts';
import { storeErrorFrom } from './store-errors.ts';

export interface KubernetesResourceStoreOptions {
  client: KubeClient;
  /** Namespace list and watch use when the caller names none (the operator's --namespace); absent = all. */
  namespace?: string;
  /** First delay before a watch the API server broke is resumed; it doubles (watch-restart-delay.ts). */
  rewatchMs?: number;
}

/** Metadata fields a ResourceStore object carries (what @orrery/spec's ObjectMeta declares). */
const KEPT_METADATA = ['name', 'namespace', 'labels', 'annotations', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'finalizers', 'ownerReferences'] as const;

/**
 * The ResourceStore over Orrery's CRDs, so the router, statesvc and the admin API read the same
 * resources in a cluster as on one machine (the operator serves this store over /v1/store and
 * /trpc). Writes go straight to the API server — server-side apply with the operator's field
 * manager, status through the status subresource — so every operator replica may serve them.
 * resourceVersions are the API server's (etcd revisions, numeric in practice; docs/architecture.md "Invariants").
 */
export function createKubernetesResourceStore(o: KubernetesResourceStoreOptions): ResourceStore {
  const { client } = o;
  const watcher = newWatch(client.config);

  const get = async (kind: ResourceKind, namespace: string, name: string): Promise<Resource | undefined> => {
    assertKind(kind);
    try {
      const obj = await client.get<KubeObject>(GROUP_VERSION, kind, namespace, name);
      return obj ? toResource(obj, kind) : undefined;
    } catch (err) {
      throw storeErrorFrom(err, `${kind} ${namespace}/${name}`);
    }
  };

  const list = async (kind: ResourceKind, opts: ListOptions = {}): Promise<ListResult> => {
    assertKind(kind);
    const selector = opts.labels ? Object.entries(opts.labels).map(([k, v]) => `${k}=${v}`).join(',') : undefined;
    try {
      const res = await client.list<KubeObject>(GROUP_VERSION, kind, opts.namespace ?? o.namespace, selector || undefined);
      const items = res.items.map((it) => toResource(it, kind));
      items.sort((a, b) => a.metadata.namespace.localeCompare(b.metadata.namespace) || a.metadata.name.localeCompare(b.metadata.name));
      return { items, resourceVersion: toNumber(res.resourceVersion) };
    } catch (err) {
      throw storeErrorFrom(err, `${kind} list`);
    }
  };

  return {
    list,
    get,

    async apply(obj: unknown, opts: ApplyOptions = {}) {
      // The Function rules that read other objects: read from the API server now. Not atomic with
      // the write (the reconciler re-checks: cross-object-rules.ts).
      const o = obj as { metadata?: { namespace?: unknown; name?: unknown } } | null;
      const lookup = await applyLookupFor(obj, {
        getEnvironment: (ns, name) => get('Environment', ns, name),
        listFunctions: async (ns) => (await list('Function', { namespace: ns })).items,
        getPrevious: async () => (typeof o?.metadata?.name === 'string' ? get('Function', typeof o.metadata.namespace === 'string' ? o.metadata.namespace : 'default', o.metadata.name) : undefined),
      });
      const res = parseForApply(obj, lookup);
      const { kind } = res;
      const { name, namespace } = res.metadata;
      const what = `${kind} ${namespace}/${name}`;
      const needsCurrent = kind === 'Revision' || opts.resourceVersion !== undefined;
      const prev = needsCurrent ? await get(kind, namespace, name) : undefined;
      checkRevisionWrite(res, prev, opts, sameValue);
      // An empty resourceVersion means "must not exist yet" (as in the local store).
      if (opts.resourceVersion === '' && prev) throw new StoreError('conflict', `${what} already exists (resourceVersion ${prev.metadata.resourceVersion})`);
      // The API server checks a resourceVersion in an apply patch only against an existing object:
      // for a missing one it creates it. The store's contract is a conflict, as locally.
      if (opts.resourceVersion && !prev) throw new StoreError('conflict', `${what} does not exist (expected resourceVersion ${opts.resourceVersion}): read it again and retry`);
      // Only what a client may set; uid, generation, timestamps … are the API server's.
      const { labels, annotations, finalizers, ownerReferences } = res.metadata;
      const metadata: KubeObject['metadata'] = { name, namespace, labels, annotations, finalizers, ownerReferences };
      for (const k of Object.keys(metadata) as Array<keyof typeof metadata>) if (metadata[k] === undefined) delete metadata[k];
      // In an apply patch a resourceVersion is a precondition: the API server answers 409 when stale.
      if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
      try {
        // Users own these objects: fields kubectl or a GitOps controller set are theirs unless the
        // caller asks to take them over.
        const out = await client.apply({ apiVersion: GROUP_VERSION, kind, metadata, spec: res.spec }, { conflicts: opts.force ? 'force' : 'refuse' });
        return toResource(out, kind);
      } catch (err) {
        throw storeErrorFrom(err, what, { precondition: opts.resourceVersion });
      }
    },

    async updateStatus(kind, namespace, name, status, opts = {}) {
      assertKind(kind);
      const what = `${kind} ${namespace}/${name}`;
      // Without a caller's version the last writer wins (as in the local store): retry on 409.
      for (let attempt = 1; ; attempt++) {
        const current = await get(kind, namespace, name);
        if (!current) throw new StoreError('not_found', `${what} not found`);
        if (opts.resourceVersion !== undefined && current.metadata.resourceVersion !== opts.resourceVersion) {
          throw new StoreError('conflict', `${what} was modified since resourceVersion ${opts.resourceVersion}: read it again and retry`);
        }
        const parsed = parseStatus(current, status);
        if (sameValue(current.status ?? null, parsed)) return current; // no change: no new resourceVersion
        try {
          // Conditional on the version just read, so the check above cannot race with another writer.
          const out = await client.applyStatus(kind, namespace, name, parsed ?? {}, { resourceVersion: current.metadata.resourceVersion });
          return toResource(out, kind);
        } catch (err) {
          const se = storeErrorFrom(err, what, { precondition: current.metadata.resourceVersion });
          if (se.code !== 'conflict' || opts.resourceVersion !== undefined || attempt >= 5) throw se;
        }
      }
    },

    async delete(kind, namespace, name, opts = {}) {
      assertKind(kind);
      try {
        return await client.delete(GROUP_VERSION, kind, namespace, name, { resourceVersion: opts.resourceVersion });
      } catch (err) {
        throw storeErrorFrom(err, `${kind} ${namespace}/${name}`, { precondition: opts.resourceVersion });
      }
    },

    watch(kind: ResourceKind, opts, onEvent: (e: WatchEvent) => void): Watch {
      assertKind(kind);
      const path = collectionPath(resourceFor(GROUP_VERSION, kind), opts.namespace ?? o.namespace);
      let cursor = opts.sinceResourceVersion !== undefined ? String(opts.sinceResourceVersion) : undefined;
      let failures = 0;
      let abort: AbortController | undefined;
      let timer: NodeJS.Timeout | undefined;
      const ending = watchEnding(() => {
        clearTimeout(timer);
        abort?.abort();
      });
      const stop = (err?: unknown) => ending.end(err);
      const expired = () =>
        new StoreError('expired', `resourceVersion ${cursor} is older than the API server's retained history: list again and watch from the list's resourceVersion`);
      // A watch ends on the API server's timeout, a dropped connection or an error: resume from the
      // last delivered version, so the consumer sees no gap (410 aside).
      const again = (afterError: boolean) => {
        if (ending.ended) return;
        failures = afterError ? failures + 1 : 0;
        const delay = afterError ? watchRestartDelay(failures, o.rewatchMs ?? 200) : 0;
        clearTimeout(timer);
        timer = setTimeout(() => void connect(), delay);
        timer.unref();
      };

      const connect = async (): Promise<void> => {
        if (ending.ended) return;
        try {
          // No version given: start from "now", not from a replay of every object.
          if (cursor === undefined) cursor = String((await list(kind, { namespace: opts.namespace })).resourceVersion);
          let gone = false;
          let broken = false;
          const startedAt = Date.now();
          const controller = await watcher.watch(
            path,
            { resourceVersion: cursor, allowWatchBookmarks: true },
            (type: string, obj: KubeObject) => {
              if (ending.ended) return;
              if (type === 'ERROR') {
                if ((obj as unknown as { code?: number }).code === 410) gone = true;
                else broken = true;
                return;
              }
              if (obj?.metadata?.resourceVersion) cursor = obj.metadata.resourceVersion;
              if (type === 'BOOKMARK') return;
              failures = 0;
              const object = toResource(obj, kind);
              onEvent({ type: type === 'ADDED' ? 'added' : type === 'DELETED' ? 'deleted' : 'modified', object, resourceVersion: toNumber(object.metadata.resourceVersion) });
            },
            (err: unknown) => {
              if (ending.ended) return;
              if (gone || storeErrorFrom(err, path).code === 'expired') stop(expired());
              // A watch that ends at once is treated like a failure, so a misbehaving server is not
              // hammered; a quiet stream's idle timeout is not one.
              else again((Boolean(err) && !isIdleTimeout(err)) || broken || Date.now() - startedAt < 1000);
            },
          );
          if (ending.ended) controller.abort();
          else abort = controller;
        } catch (err) {
          if (ending.ended) return;
          if (storeErrorFrom(err, path).code === 'expired') stop(expired());
          else again(true);
        }
      };
      void connect();
      return { close: () => stop(), done: ending.done };
    },

    async close() {},
  };
}

/** The API object as a store object: Orrery's fields only (no managedFields, selfLink …). */
export function toResource(typed: KubeObject, kind: ResourceKind): Resource {
  // client-node deserializes metadata into typed objects (timestamps become Dates): back to JSON.
  const obj = JSON.parse(JSON.stringify(typed)) as KubeObject;
  const metadata: Record<string, unknown> = {};
  for (const k of KEPT_METADATA) if (obj.metadata[k] !== undefined) metadata[k] = obj.metadata[k];
  const out: Record<string, unknown> = { apiVersion: GROUP_VERSION, kind, metadata, spec: obj.spec };
  if (obj.status !== undefined && obj.status !== null) out.status = obj.status;
  return out as unknown as Resource;
}

function toNumber(resourceVersion: string | undefined): number {
  const n = Number(resourceVersion);
  return Number.isFinite(n) ? n : 0;
}

/** Equal as stored: an API server may drop empty maps, so they do not count as a difference. */
function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(withoutEmptyMaps(a), withoutEmptyMaps(b));
}

function withoutEmptyMaps(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmptyMaps);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutEmptyMaps(x);
    if (y === undefined || (typeof y === 'object' && y !== null && !Array.isArray(y) && Object.keys(y).length === 0)) continue;
    out[k] = y;
  }
  return out;
}
