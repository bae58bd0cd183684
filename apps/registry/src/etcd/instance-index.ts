import type { Etcd3, IKeyValue, IWatchResponse, Watcher } from 'etcd3';
import { backoffDelay } from '@orrery/spec';
import type { Instance, InstanceRecord } from '../model/instance.ts';
import { expiresAt } from '../model/heartbeat-age.ts';
import { ExpirySchedule } from '../model/expiry-schedule.ts';
import { compareInstances, matchesFilter, serviceSelected, type InstanceFilter } from '../query/filter.ts';
import { SelectionCache } from '../query/selection-cache.ts';
import type { KeyLayout } from './keys.ts';
import { RevisionBarrier, type ReadRoute } from './revision-barrier.ts';

/**
 * One applied change, in etcd revision order. `prev` is what the index held before.
 * `hidden` / `prevHidden`: the instance (before) is past its TTL without renewal, so answers
 * skip it (heartbeat-age.ts). An `expire` change is no etcd event: the index saw an instance's
 * TTL pass without renewal; `revision` is the index's revision at that moment.
 */
export type IndexChange =
  | { type: 'put'; revision: number; key: string; instance: Instance; prev?: Instance; hidden: boolean; prevHidden: boolean }
  | { type: 'delete'; revision: number; key: string; prev: Instance; prevHidden: boolean }
  | { type: 'expire'; revision: number; key: string; prev: Instance };

/** Whether answers include instances whose TTL passed without renewal (`includeExpired=true`). */
export interface SelectOptions {
  includeExpired?: boolean;
}

export type ChangeListener = (change: IndexChange) => void;

export class IndexTimeoutError extends Error {}

const PAGE = 1000;
const ALL_KEYS = Buffer.from([0]);

export function decodeInstance(kv: IKeyValue): Instance | undefined {
  try {
    const rec = JSON.parse(kv.value.toString('utf8')) as InstanceRecord;
    return {
      ...rec,
      revision: Number(kv.mod_revision),
      createRevision: Number(kv.create_revision),
      leaseId: BigInt(kv.lease || '0').toString(16),
    };
  } catch {
    return undefined;
  }
}

/**
 * The registry's in-memory view of every instance, fed by one etcd watch.
 *
 * Reads stay linearizable without scanning etcd: `barrier()` asks etcd for its current revision
 * with one linearizable read of a single small key (etcd runs ReadIndex for it), then waits until
 * this index has applied at least that revision — StellMap's ReadIndex + appliedIndex rule.
 * The watch covers the whole keyspace (not only our prefix) because every etcd revision is then
 * visible as an event: the index can always reach the barrier revision, even when the last write
 * touched a key outside the registry's prefix.
 */
export class InstanceIndex {
  /** Highest etcd revision whose events are all applied. */
  revision = 0;
  ready = false;
  private readonly entries = new Map<string, Instance>();
  /** namespace → service → key → instance, for cheap filtered reads. */
  private readonly tree = new Map<string, Map<string, Map<string, Instance>>>();
  /** `namespace\0service\0labelKey\0value` → instance keys: equality selectors read O(matches). */
  private readonly byLabel = new Map<string, Set<string>>();
  private readonly listeners = new Set<ChangeListener>();
  /** Keys of instances past their TTL without renewal → the index revision when they expired. */
  private readonly expired = new Map<string, number>();
  private readonly expiry = new ExpirySchedule();
  /**
   * `namespace` and `namespace\0service` → the number of the last change applied in it (one
   * counter for the whole index, so a stamp is never reused, even for a service deleted and
   * created again). A service or namespace with no instances has no stamp. Cached answers
   * (selection-cache.ts) stay valid while the stamps of what they cover stand.
   */
  private readonly stamps = new Map<string, number>();
  private changeCount = 0;
  private readonly answers = new SelectionCache<Instance>();
  private expiryTimer?: NodeJS.Timeout;
  private expiryTimerAt = Number.POSITIVE_INFINITY;
  private waiters: Array<{ revision: number; resolve: () => void }> = [];
  private watcher?: Watcher;
  private closed = false;
  private resyncing?: Promise<void>;
  readonly revisions: RevisionBarrier;
  /** Called when the watch had to be rebuilt (compaction while disconnected): for metrics/logs. */
  onResync?: (reason: string) => void;

  /** The watch runs on its own client so a stalled stream can be replaced without touching reads. */
  private watchClient?: Etcd3;
  private reconnecting?: Promise<void>;
  /** Times the watch was rebuilt because it stalled behind a barrier (metrics/tests). */
  stalls = 0;

  constructor(
    private readonly client: Etcd3,
    private readonly keys: KeyLayout,
    private readonly requestTimeoutMs: number,
    private readonly newWatchClient: () => Etcd3 | Promise<Etcd3> = () => client,
    /** How long a barrier waits for the watch before suspecting the stream is stuck. */
    private readonly stallMs = 1500,
    /** The clock the TTL rule reads (tests move it). */
    private readonly now: () => number = Date.now,
    /** Where barrier reads run (the server pins them to the etcd leader); `client` by default. */
    barrierReads?: ReadRoute,
  ) {
    this.revisions = new RevisionBarrier(client, keys.barrierKey, barrierReads);
  }

  async start(): Promise<void> {
    const rev = await this.load();
    await this.watchFrom(rev + 1);
    this.ready = true;
  }

  size(): number {
    return this.entries.size;
  }

  /** Reads every instance page by page at one revision, replacing the index content (diffed). */
  private async load(): Promise<number> {
    const fresh = new Map<string, Instance>();
    let start = Buffer.from(this.keys.instancesPrefix);
    const end = prefixEnd(this.keys.instancesPrefix);
    let atRevision: string | undefined;
    let headerRevision = 0;
    for (;;) {
      const res = await this.client.kv.range({ key: start, range_end: end, limit: PAGE, ...(atRevision ? { revision: atRevision } : {}) });
      if (!atRevision) {
        atRevision = res.header.revision;
        headerRevision = Number(res.header.revision);
      }
      for (const kv of res.kvs) {
        const inst = decodeInstance(kv);
        if (inst) fresh.set(kv.key.toString('utf8'), inst);
      }
      if (!res.more || res.kvs.length === 0) break;
      start = Buffer.concat([res.kvs[res.kvs.length - 1]!.key, Buffer.from([0])]);
    }
    // Diff against what we had, so watch subscribers see a consistent stream after a resync.
    for (const [key, prev] of [...this.entries]) {
      if (!fresh.has(key)) this.applyDelete(headerRevision, key, prev);
    }
    for (const [key, inst] of fresh) {
      const prev = this.entries.get(key);
      if (!prev || prev.revision !== inst.revision) this.applyPut(headerRevision, key, inst, prev);
    }
    this.advance(headerRevision);
    return headerRevision;
  }

  private async watchFrom(revision: number): Promise<void> {
    this.watchClient ??= await this.newWatchClient();
    const watcher = await this.watchClient.watch().inRange({ start: ALL_KEYS, end: ALL_KEYS }).startRevision(String(revision)).create();
    if (this.closed) {
      await watcher.cancel();
      return;
    }
    this.watcher = watcher;
    watcher.on('data', (res: IWatchResponse) => this.onWatchResponse(res));
    // etcd3 re-attaches a watcher after a stream error at its last response header + 1. The
    // header of a creation reply (or of a catching-up batch) is the member's current revision,
    // ahead of events not delivered yet: resuming there would skip them. Resume after what this
    // index has applied instead (the request is written right after this event).
    watcher.on('connecting', (req) => {
      (req as { start_revision?: number | string }).start_revision = String(this.revision + 1);
    });
    // Cancelled by etcd (typically: our resume revision was compacted while disconnected).
    watcher.on('error', (err: Error) => void this.resync(`watch cancelled: ${err.message}`));
  }

  private onWatchResponse(res: IWatchResponse): void {
    let maxRevision = 0;
    for (const ev of res.events) {
      const revision = Number(ev.kv.mod_revision);
      if (revision > maxRevision) maxRevision = revision;
      const key = ev.kv.key.toString('utf8');
      if (!key.startsWith(this.keys.instancesPrefix)) continue;
      const prev = this.entries.get(key);
      if (ev.type === 'Put') {
        const inst = decodeInstance(ev.kv);
        if (inst) this.applyPut(revision, key, inst, prev);
      } else if (prev) {
        this.applyDelete(revision, key, prev);
      }
    }
    // An event-less response is a progress notification, sent only to a synced watcher: every
    // revision up to its header is delivered. With events, the header may run ahead of a
    // catching-up watcher, so only the events' own revisions count.
    this.advance(res.events.length === 0 ? Number(res.header.revision) : maxRevision);
  }

  private async resync(reason: string): Promise<void> {
    if (this.closed || this.resyncing) return this.resyncing;
    this.resyncing = (async () => {
      this.onResync?.(reason);
      const old = this.watcher;
      this.watcher = undefined;
      await old?.cancel().catch(() => undefined);
      for (let attempt = 0; !this.closed; attempt++) {
        try {
          const rev = await this.load();
          await this.watchFrom(rev + 1);
          return;
        } catch {
          await new Promise((r) => setTimeout(r, backoffDelay(attempt, { initialMs: 200, maxMs: 5000 })));
        }
      }
    })().finally(() => {
      this.resyncing = undefined;
    });
    return this.resyncing;
  }

  private labelSlot(inst: Instance, key: string, value: string): string {
    return `${inst.namespace}\0${inst.service}\0${key}\0${value}`;
  }

  private indexLabels(inst: Instance | undefined, key: string, add: boolean): void {
    if (!inst) return;
    for (const [k, v] of Object.entries(inst.labels)) {
      const slot = this.labelSlot(inst, k, v);
      let set = this.byLabel.get(slot);
      if (add) {
        if (!set) this.byLabel.set(slot, (set = new Set()));
        set.add(key);
      } else if (set) {
        set.delete(key);
        if (set.size === 0) this.byLabel.delete(slot);
      }
    }
  }

  private applyPut(revision: number, key: string, instance: Instance, prev: Instance | undefined): void {
    const prevHidden = this.expired.has(key);
    this.expired.delete(key);
    // A record that arrives already past its TTL (a resync, a stale re-put) is hidden at once.
    const at = expiresAt(instance);
    const hidden = at !== undefined && this.now() > at;
    if (hidden) this.expired.set(key, revision);
    else if (at !== undefined) this.scheduleExpiry(key, at);
    else this.expiry.cancel(key);
    this.apply({ type: 'put', revision, key, instance, prev, hidden, prevHidden });
  }

  private applyDelete(revision: number, key: string, prev: Instance): void {
    const prevHidden = this.expired.delete(key);
    this.expiry.cancel(key);
    this.apply({ type: 'delete', revision, key, prev, prevHidden });
  }

  private apply(change: IndexChange): void {
    const touched = change.type === 'put' ? change.instance : change.prev;
    const stamp = ++this.changeCount;
    this.stamps.set(touched.namespace, stamp);
    this.stamps.set(`${touched.namespace}\0${touched.service}`, stamp);
    if (change.type === 'expire') {
      for (const l of this.listeners) l(change);
      return;
    }
    this.indexLabels(this.entries.get(change.key), change.key, false);
    if (change.type === 'put') this.indexLabels(change.instance, change.key, true);
    if (change.type === 'put') {
      this.entries.set(change.key, change.instance);
      this.treeFor(change.instance.namespace, change.instance.service, true)!.set(change.key, change.instance);
    } else {
      this.entries.delete(change.key);
      const svc = this.treeFor(change.prev.namespace, change.prev.service, false);
      svc?.delete(change.key);
      if (svc && svc.size === 0) {
        const ns = this.tree.get(change.prev.namespace);
        ns?.delete(change.prev.service);
        this.stamps.delete(`${change.prev.namespace}\0${change.prev.service}`);
        if (ns && ns.size === 0) {
          this.tree.delete(change.prev.namespace);
          this.stamps.delete(change.prev.namespace);
        }
      }
    }
    for (const l of this.listeners) l(change);
  }

  private scheduleExpiry(key: string, at: number): void {
    this.expiry.schedule(key, at);
    this.armExpiryTimer();
  }

  /** One timer for the earliest expiry; it hides what came due and sets itself for the next. */
  private armExpiryTimer(): void {
    if (this.closed) return;
    const next = this.expiry.nextAt();
    if (next === undefined || next >= this.expiryTimerAt) return;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimerAt = next;
    this.expiryTimer = setTimeout(() => {
      this.expiryTimer = undefined;
      this.expiryTimerAt = Number.POSITIVE_INFINITY;
      this.expireDue();
      this.armExpiryTimer();
    }, Math.max(0, next - this.now()) + 1);
    this.expiryTimer.unref();
  }

  /**
   * Hides every instance whose TTL passed without renewal by now, telling subscribers (an
   * `expire` change each). Answers call it first, so what they skip never depends on the timer's
   * punctuality. A renewal since the instance was scheduled moved its expiry: it is scheduled again.
   */
  expireDue(): void {
    const now = this.now();
    for (const key of this.expiry.due(now)) {
      const inst = this.entries.get(key);
      if (!inst || this.expired.has(key)) continue;
      const at = expiresAt(inst);
      if (at === undefined) continue;
      if (at >= now) {
        this.expiry.schedule(key, at);
        continue;
      }
      this.expired.set(key, this.revision);
      this.apply({ type: 'expire', revision: this.revision, key, prev: inst });
    }
    this.armExpiryTimer();
  }

  /** Instances currently hidden by the TTL rule (metrics). */
  expiredCount(): number {
    return this.expired.size;
  }

  /** Hidden instances (key, instance, the index revision when they expired), for a resumed watch. */
  *expiredInstances(): IterableIterator<{ key: string; instance: Instance; expiredAt: number }> {
    for (const [key, expiredAt] of this.expired) {
      const instance = this.entries.get(key);
      if (instance) yield { key, instance, expiredAt };
    }
  }

  private treeFor(namespace: string, service: string, create: boolean): Map<string, Instance> | undefined {
    let ns = this.tree.get(namespace);
    if (!ns) {
      if (!create) return undefined;
      ns = new Map();
      this.tree.set(namespace, ns);
    }
    let svc = ns.get(service);
    if (!svc) {
      if (!create) return undefined;
      svc = new Map();
      ns.set(service, svc);
    }
    return svc;
  }

  private advance(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.revision <= revision) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /** Resolves once the index has applied `revision`. */
  waitForRevision(revision: number, timeoutMs = this.requestTimeoutMs): Promise<void> {
    if (this.revision >= revision) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new IndexTimeoutError(`the registry index did not reach etcd revision ${revision} within ${timeoutMs} ms (at ${this.revision})`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Linearizable point: after this resolves, the index reflects every write acknowledged before the call. */
  async barrier(): Promise<number> {
    const revision = await this.revisions.current();
    if (this.revision >= revision) return this.revision;
    try {
      await this.waitForRevision(revision, Math.min(this.stallMs, this.requestTimeoutMs));
    } catch (err) {
      if (!(err instanceof IndexTimeoutError) || this.stallMs >= this.requestTimeoutMs) throw err;
      // etcd has committed `revision` but our stream has not delivered it: its member is
      // probably paused or cut off (gRPC keep-alive would notice only later). Re-watch elsewhere.
      void this.reconnectWatch();
      await this.waitForRevision(revision, this.requestTimeoutMs - this.stallMs);
    }
    return this.revision;
  }

  /** Replaces the watch client and resumes after the last fully applied revision. */
  private reconnectWatch(): Promise<void> {
    if (this.reconnecting || this.resyncing || this.closed) return this.reconnecting ?? Promise.resolve();
    this.stalls++;
    this.reconnecting = (async () => {
      const old = this.watcher;
      const oldClient = this.watchClient;
      this.watcher = undefined;
      this.watchClient = undefined;
      old?.removeAllListeners('data');
      old?.removeAllListeners('error');
      old?.on('error', () => undefined);
      if (oldClient && oldClient !== this.client) oldClient.close();
      try {
        await this.watchFrom(this.revision + 1);
      } catch {
        await this.resync('watch reconnect failed');
      }
    })().finally(() => {
      this.reconnecting = undefined;
    });
    return this.reconnecting;
  }

  get(key: string): Instance | undefined {
    return this.entries.get(key);
  }

  /**
   * Instances matching the filter, sorted, cut at `limit` — without those whose TTL passed
   * without renewal unless `includeExpired`. No I/O: call `barrier()` first. The answer is shared
   * (frozen when kept): the same query against unchanged services gets the same array back.
   */
  select(filter: InstanceFilter, options: SelectOptions = {}): readonly Instance[] {
    this.expireDue();
    const ns = this.tree.get(filter.namespace);
    if (!ns) return [];
    const exactOnly = filter.services.length > 0 && filter.prefixes.length === 0;
    const key = `${options.includeExpired === true ? 1 : 0}${JSON.stringify(filter)}`;
    const signature = this.signature(filter, exactOnly);
    const kept = this.answers.get(key, signature);
    if (kept) return kept;
    const out: Instance[] = [];
    const consider = (key: string, inst: Instance | undefined): void => {
      if (inst && (options.includeExpired || !this.expired.has(key)) && matchesFilter(filter, inst)) out.push(inst);
    };
    const narrowed = exactOnly ? this.labelCandidates(filter) : undefined;
    if (narrowed) {
      for (const key of narrowed) consider(key, this.entries.get(key));
    } else {
      for (const [service, m] of ns) {
        if (exactOnly ? filter.services.includes(service) : serviceSelected(filter, service)) for (const [key, inst] of m) consider(key, inst);
      }
    }
    out.sort(compareInstances);
    return this.answers.set(key, signature, filter.limit !== undefined ? out.slice(0, filter.limit) : out);
  }

  /** The stamps an answer to `filter` depends on: its exact services', or its namespace's. */
  private signature(filter: InstanceFilter, exactOnly: boolean): string {
    if (!exactOnly) return String(this.stamps.get(filter.namespace) ?? 0);
    let sig = '';
    for (const service of filter.services) sig += `${this.stamps.get(`${filter.namespace}\0${service}`) ?? 0},`;
    return sig;
  }

  /**
   * For exact services and at least one `key=value` / `key in (…)` requirement: the instance keys
   * carrying those labels (smallest requirement wins). Undefined when no such requirement exists.
   */
  private labelCandidates(filter: InstanceFilter): Set<string> | undefined {
    let best: Set<string> | undefined;
    for (const r of filter.requirements) {
      if (r.op !== 'eq' && r.op !== 'in') continue;
      const values = r.op === 'eq' ? [r.value] : r.values;
      const set = new Set<string>();
      for (const service of new Set(filter.services)) {
        for (const v of values) {
          const keys = this.byLabel.get(`${filter.namespace}\0${service}\0${r.key}\0${v}`);
          if (keys) for (const k of keys) set.add(k);
        }
      }
      if (!best || set.size < best.size) best = set;
    }
    return best;
  }

  /** All instances (every namespace); for the expiry sweep and Prometheus SD across namespaces. */
  all(): IterableIterator<[string, Instance]> {
    return this.entries.entries();
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiry.clear();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    await this.watcher?.cancel().catch(() => undefined);
    if (this.watchClient && this.watchClient !== this.client) this.watchClient.close();
  }
}

export function prefixEnd(prefix: string): Buffer {
  const buf = Buffer.from(prefix);
  for (let i = buf.length - 1; i >= 0; i--) {
    if (buf[i]! < 0xff) {
      const end = Buffer.from(buf.subarray(0, i + 1));
      end[i] = end[i]! + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}
