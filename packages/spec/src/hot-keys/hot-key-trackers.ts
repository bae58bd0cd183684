import { DecayedTopK } from './decayed-top-k.ts';
import { HOT_KEYS_DEFAULT_CAPACITY, HOT_KEYS_DEFAULT_HALF_LIFE_MS, HOT_KEYS_DEFAULT_MAX_TRACKERS } from './hot-key-defaults.ts';
import { hotKeysView, type HotKeysView } from './hot-key-view.ts';

export interface HotKeyTrackersOptions {
  /** Counters per tracker (k). */
  capacity?: number;
  halfLifeMs?: number;
  /** Trackers held at once; a new one beyond it replaces the coldest (smallest decayed total). */
  maxTrackers?: number;
}

export interface TrackerView extends HotKeysView {
  namespace: string;
  name: string;
}

/**
 * One decayed top-k per stream — per keyspace in statesvc, per sticky function in the router —
 * with the number of streams bounded too, so memory is fixed whatever the traffic: at most
 * maxTrackers × capacity keys. Pure like DecayedTopK: every call carries the time.
 */
export class HotKeyTrackers {
  readonly capacity: number;
  readonly halfLifeMs: number;
  readonly maxTrackers: number;
  private readonly byNamespace = new Map<string, Map<string, DecayedTopK>>();
  private count = 0;
  /** Trackers dropped because the bound was reached (a growing number means it is too small). */
  evictions = 0;

  constructor(opts: HotKeyTrackersOptions = {}) {
    this.capacity = opts.capacity ?? HOT_KEYS_DEFAULT_CAPACITY;
    this.halfLifeMs = opts.halfLifeMs ?? HOT_KEYS_DEFAULT_HALF_LIFE_MS;
    this.maxTrackers = opts.maxTrackers ?? HOT_KEYS_DEFAULT_MAX_TRACKERS;
    if (!Number.isInteger(this.maxTrackers) || this.maxTrackers < 1) throw new RangeError(`hot keys: maxTrackers must be a positive integer, got ${this.maxTrackers}`);
    // Validates capacity and half-life once, at construction, rather than at the first request.
    new DecayedTopK({ capacity: this.capacity, halfLifeMs: this.halfLifeMs });
  }

  /** Trackers held now (≤ maxTrackers). */
  get size(): number {
    return this.count;
  }

  /** Counts one request for `key` in stream namespace/name at `nowMs` (`flagged`: see DecayedTopK.observe). */
  observe(namespace: string, name: string, key: string, nowMs: number, flagged = false): void {
    let names = this.byNamespace.get(namespace);
    let tracker = names?.get(name);
    if (!tracker) {
      if (this.count >= this.maxTrackers) this.evictColdest(nowMs);
      tracker = new DecayedTopK({ capacity: this.capacity, halfLifeMs: this.halfLifeMs });
      if (!names) this.byNamespace.set(namespace, (names = new Map()));
      names.set(name, tracker);
      this.count++;
    }
    tracker.observe(key, nowMs, flagged);
  }

  /** The tracker of one stream, if it has one. */
  get(namespace: string, name: string): DecayedTopK | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  /** Views of every stream (or one namespace's, or one stream's), sorted by namespace and name. */
  view(nowMs: number, limit: number, only: { namespace?: string; name?: string } = {}): TrackerView[] {
    const out: TrackerView[] = [];
    for (const [namespace, names] of this.byNamespace) {
      if (only.namespace !== undefined && namespace !== only.namespace) continue;
      for (const [name, tracker] of names) {
        if (only.name !== undefined && name !== only.name) continue;
        out.push({ namespace, name, ...hotKeysView(tracker, nowMs, limit) });
      }
    }
    return out.sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** What is held: trackers, keys over all trackers, and the bounds. */
  memory(): { trackers: number; maxTrackers: number; keys: number; maxKeys: number } {
    let keys = 0;
    for (const names of this.byNamespace.values()) for (const t of names.values()) keys += t.size;
    return { trackers: this.count, maxTrackers: this.maxTrackers, keys, maxKeys: this.maxTrackers * this.capacity };
  }

  private evictColdest(nowMs: number): void {
    let coldNs: string | undefined;
    let coldName: string | undefined;
    let coldest = Infinity;
    for (const [namespace, names] of this.byNamespace) {
      for (const [name, tracker] of names) {
        const total = tracker.total(nowMs);
        if (total < coldest) {
          coldest = total;
          coldNs = namespace;
          coldName = name;
        }
      }
    }
    if (coldNs === undefined || coldName === undefined) return;
    const names = this.byNamespace.get(coldNs)!;
    names.delete(coldName);
    if (names.size === 0) this.byNamespace.delete(coldNs);
    this.count--;
    this.evictions++;
  }
}
