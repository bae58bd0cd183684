/**
 * The hottest keys of one stream (a keyspace's state calls, a function's sticky requests) in fixed
 * memory, weighted towards now. Pure: the caller passes the time of every call, so tests drive a
 * fake clock; nothing here reads a clock, allocates per call beyond the Map entry of a new key, or
 * grows with the number of distinct keys.
 *
 * Algorithm: Space-Saving (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and
 * top-k elements in data streams", ICDT 2005) over exponentially decayed counts. `capacity` (k)
 * counters; a key already counted adds its weight; a new key takes a free counter, or replaces the
 * key with the smallest count m, inheriting m (its `error`: at most m of its count may belong to
 * the keys it replaced). The smallest counter is kept at the root of a binary min-heap, so a call
 * costs one Map lookup and O(log k) moves.
 *
 * Decay ("hot now", not "hot since start"): an event at time t weighs 2^(−(now − t)/H) at `now`,
 * H = `halfLifeMs`. It is computed as forward decay (Cormode, Shkapenyuk, Srivastava, Xu, ICDE
 * 2009): an event adds 2^((t − L)/H) for a landmark L and every count is divided by 2^((now − L)/H)
 * when read. All counters scale by the same factor, so Space-Saving's argument is unchanged; the
 * landmark moves forward (every count rescaled once) before the factor leaves double range.
 *
 * ERROR BOUND. Let D = Σ 2^(−(now − tᵢ)/H) over every event so far (`total`: the decayed stream
 * length, exact) and f(x) the decayed count of key x (the same sum over x's events). Then
 *   1. for a tracked key, count − error ≤ f(x) ≤ count (never an underestimate);
 *   2. error ≤ m ≤ D / k, with m the smallest tracked count (`minCount`, 0 while a counter is
 *      free); an untracked key has f(x) ≤ m;
 *   3. hence every key with f(x) > D/k is tracked, and the reported top-n differs from the true
 *      top-n only by keys whose true counts are within m of each other: a key of the true top-n
 *      left out has f within m of a reported key's (pinned by decayed-top-k.zipf.test.ts).
 * (The counters sum to D exactly — every event adds its weight to one counter, and a replaced
 * key's count stays in the counter — so the smallest is at most D/k.) A share (count / D) is
 * therefore at most 1/k too high; with the default 128 counters, 0.8 percentage points at worst.
 * On skewed traffic the hot keys are never the smallest counter, so their error stays 0 or tiny:
 * the bound is what matters for the tail, which is not reported anyway.
 *
 * Rate: a key receiving r events/s for a long time has decayed count r·H/ln 2 (H in seconds), so
 * rate = count · ln 2 / H. During the first half-lives the sum has not filled up yet:
 * r·H/ln 2·(1 − 2^(−age/H)); `rateFactor` divides by that too, so a steady stream reads right
 * from its first seconds (age counted from the tracker's first event, at least one second).
 *
 * Memory: k keys (each at most the caller's key length limit), 4 numbers and 2 indexes per counter
 * in typed arrays allocated once, one Map of at most k entries. `memory()` reports it.
 */

export interface DecayedTopKOptions {
  /** Counters (k): the most keys ever held. */
  capacity: number;
  /** Half-life H of a count, in the caller's time unit (milliseconds). */
  halfLifeMs: number;
}

export interface TopKEntry {
  key: string;
  /** Decayed count (an upper bound of the key's decayed event count). */
  count: number;
  /** How much of `count` may belong to keys this counter held before (count − error ≤ true ≤ count). */
  error: number;
  /** Decayed count of the events observed with `flagged` since this key took its counter. */
  flagged: number;
}

/** Counts are rescaled before the forward-decay factor 2^exponent passes this exponent (far inside double range). */
const RESCALE_EXPONENT = 64;
/** Capacities above this are refused: the point is a small, fixed summary. */
export const DECAYED_TOP_K_MAX_CAPACITY = 65_536;

export class DecayedTopK {
  readonly capacity: number;
  readonly halfLifeMs: number;
  /** Forward-decay landmark L and the latest time seen (time never runs backwards in here). */
  private landmark = NaN;
  private latest = NaN;
  private firstAt = NaN;
  /** Σ weights, scaled like the counts (divide by 2^((now − L)/H) to read). */
  private scaledTotal = 0;
  private readonly slotOf = new Map<string, number>();
  private readonly keys: string[];
  private readonly counts: Float64Array;
  private readonly errors: Float64Array;
  private readonly flags: Float64Array;
  /** heap[i] = slot at heap position i (min-heap on counts); posOf[slot] = its heap position. */
  private readonly heap: Int32Array;
  private readonly posOf: Int32Array;
  private used = 0;

  constructor(opts: DecayedTopKOptions) {
    const { capacity, halfLifeMs } = opts;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > DECAYED_TOP_K_MAX_CAPACITY) {
      throw new RangeError(`hot keys: capacity must be an integer from 1 to ${DECAYED_TOP_K_MAX_CAPACITY}, got ${capacity}`);
    }
    if (!(halfLifeMs > 0) || !Number.isFinite(halfLifeMs)) throw new RangeError(`hot keys: halfLifeMs must be a positive number, got ${halfLifeMs}`);
    this.capacity = capacity;
    this.halfLifeMs = halfLifeMs;
    this.keys = new Array<string>(capacity).fill('');
    this.counts = new Float64Array(capacity);
    this.errors = new Float64Array(capacity);
    this.flags = new Float64Array(capacity);
    this.heap = new Int32Array(capacity);
    this.posOf = new Int32Array(capacity);
  }

  /** Keys held now (≤ capacity). */
  get size(): number {
    return this.used;
  }

  /**
   * Counts one event of `key` at `nowMs`. `flagged` also counts it in the key's `flagged` sum (the
   * router: the request did not get the key's sticky owner). A time before the latest seen counts
   * as the latest (a clock stepping back cannot make old events heavier than new ones).
   */
  observe(key: string, nowMs: number, flagged = false): void {
    const w = this.weightAt(nowMs);
    this.scaledTotal += w;
    const slot = this.slotOf.get(key);
    if (slot !== undefined) {
      this.counts[slot]! += w;
      if (flagged) this.flags[slot]! += w;
      this.siftDown(this.posOf[slot]!);
      return;
    }
    if (this.used < this.capacity) {
      const s = this.used++;
      this.keys[s] = key;
      this.counts[s] = w;
      this.errors[s] = 0;
      this.flags[s] = flagged ? w : 0;
      this.slotOf.set(key, s);
      this.heap[s] = s;
      this.posOf[s] = s;
      this.siftUp(s);
      return;
    }
    // Space-Saving: the key with the smallest count gives its counter up; the newcomer inherits it.
    const s = this.heap[0]!;
    const min = this.counts[s]!;
    this.slotOf.delete(this.keys[s]!);
    this.keys[s] = key;
    this.slotOf.set(key, s);
    this.errors[s] = min;
    this.counts[s] = min + w;
    this.flags[s] = flagged ? w : 0;
    this.siftDown(0);
  }

  /** Decayed stream length D at `nowMs` (exact). */
  total(nowMs: number): number {
    return this.scaledTotal * this.readScale(nowMs);
  }

  /** The smallest tracked count at `nowMs` (0 while a counter is free): the bound of every error and of every untracked key. */
  minCount(nowMs: number): number {
    return this.used < this.capacity ? 0 : this.counts[this.heap[0]!]! * this.readScale(nowMs);
  }

  /** The `n` highest counts at `nowMs`, highest first (ties by key, so the order is stable). */
  top(n: number, nowMs: number): TopKEntry[] {
    const scale = this.readScale(nowMs);
    const slots: number[] = [];
    for (let s = 0; s < this.used; s++) slots.push(s);
    slots.sort((a, b) => this.counts[b]! - this.counts[a]! || (this.keys[a]! < this.keys[b]! ? -1 : this.keys[a]! > this.keys[b]! ? 1 : 0));
    return slots.slice(0, Math.max(0, n)).map((s) => ({ key: this.keys[s]!, count: this.counts[s]! * scale, error: this.errors[s]! * scale, flagged: this.flags[s]! * scale }));
  }

  /**
   * Multiply a decayed count by this to get events per second at `nowMs` (see the file comment):
   * ln 2 / H, corrected for a tracker younger than a few half-lives. 0 before the first event.
   */
  rateFactor(nowMs: number): number {
    if (Number.isNaN(this.firstAt)) return 0;
    const t = Math.max(nowMs, this.latest);
    const ageMs = Math.max(1000, t - this.firstAt);
    const filled = 1 - Math.pow(2, -ageMs / this.halfLifeMs);
    return Math.LN2 / (this.halfLifeMs / 1000) / filled;
  }

  /** What this summary holds: counters in use, the fixed capacity, and the characters of the keys held. */
  memory(): { tracked: number; capacity: number; mapEntries: number; keyChars: number } {
    let keyChars = 0;
    for (let s = 0; s < this.used; s++) keyChars += this.keys[s]!.length;
    return { tracked: this.used, capacity: this.capacity, mapEntries: this.slotOf.size, keyChars };
  }

  /** The forward-decay weight of an event at `nowMs`, moving the landmark first when it would grow too large. */
  private weightAt(nowMs: number): number {
    if (!Number.isFinite(nowMs)) throw new RangeError(`hot keys: time must be a finite number, got ${nowMs}`);
    if (Number.isNaN(this.landmark)) {
      this.landmark = nowMs;
      this.latest = nowMs;
      this.firstAt = nowMs;
    }
    if (nowMs > this.latest) this.latest = nowMs;
    let exponent = (this.latest - this.landmark) / this.halfLifeMs;
    if (exponent > RESCALE_EXPONENT) {
      const f = Math.pow(2, -exponent);
      for (let s = 0; s < this.used; s++) {
        this.counts[s]! *= f;
        this.errors[s]! *= f;
        this.flags[s]! *= f;
      }
      this.scaledTotal *= f;
      this.landmark = this.latest;
      exponent = 0;
    }
    return Math.pow(2, exponent);
  }

  /** Divides scaled counts down to their value at `nowMs` (a time before the latest reads as the latest). */
  private readScale(nowMs: number): number {
    if (Number.isNaN(this.landmark)) return 0;
    const t = Math.max(nowMs, this.latest);
    return Math.pow(2, -(t - this.landmark) / this.halfLifeMs);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    this.heap[i] = b;
    this.heap[j] = a;
    this.posOf[b] = i;
    this.posOf[a] = j;
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.counts[this.heap[parent]!]! <= this.counts[this.heap[i]!]!) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.used;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      const c = r < n && this.counts[this.heap[r]!]! < this.counts[this.heap[l]!]! ? r : l;
      if (this.counts[this.heap[i]!]! <= this.counts[this.heap[c]!]!) return;
      this.swap(i, c);
      i = c;
    }
  }

  /** Test hook: the heap and index agree (every slot once, parent ≤ children, Map ↔ keys). */
  checkInvariants(): string | undefined {
    if (this.slotOf.size !== this.used) return `index holds ${this.slotOf.size} keys, ${this.used} counters in use`;
    for (let i = 0; i < this.used; i++) {
      const s = this.heap[i]!;
      if (this.posOf[s] !== i) return `heap position ${i} holds slot ${s}, whose position says ${this.posOf[s]}`;
      if (this.slotOf.get(this.keys[s]!) !== s) return `slot ${s} key ${this.keys[s]} is indexed as ${this.slotOf.get(this.keys[s]!)}`;
      if (i > 0 && this.counts[this.heap[(i - 1) >> 1]!]! > this.counts[s]!) return `heap order broken at position ${i}`;
      if (this.errors[s]! > this.counts[s]!) return `slot ${s}: error above count`;
    }
    return undefined;
  }
}
