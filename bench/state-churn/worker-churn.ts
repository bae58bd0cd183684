/**
 * Which worker the churn removes next, and how long the pool executor takes to bring a
 * replacement. Workers are known only by what answered: the handler names its process id.
 */
export interface Sighting {
  firstSeenMs: number;
  lastSeenMs: number;
}

/**
 * The longest-serving worker among those that answered within `windowMs` (a rolling
 * replacement), never the last one standing: undefined when fewer than two are live.
 */
export function pickVictim(workers: ReadonlyMap<string, Sighting>, removed: ReadonlySet<string>, nowMs: number, windowMs: number): string | undefined {
  const live = [...workers].filter(([id, s]) => !removed.has(id) && nowMs - s.lastSeenMs <= windowMs);
  if (live.length < 2) return undefined;
  live.sort(([a, x], [b, y]) => x.firstSeenMs - y.firstSeenMs || (a < b ? -1 : 1));
  return live[0]![0];
}

export class WorkerSightings {
  readonly workers = new Map<string, Sighting>();
  readonly removed = new Set<string>();
  /** Removals not yet followed by a new worker, oldest first. */
  private readonly waiting: number[] = [];
  /** Milliseconds from a removal to the first answer of a worker never seen before. */
  readonly replacementMs: number[] = [];

  saw(id: string, nowMs: number): void {
    const s = this.workers.get(id);
    if (s) {
      s.lastSeenMs = Math.max(s.lastSeenMs, nowMs);
      return;
    }
    this.workers.set(id, { firstSeenMs: nowMs, lastSeenMs: nowMs });
    const since = this.waiting.shift();
    if (since !== undefined) this.replacementMs.push(nowMs - since);
  }

  remove(id: string, nowMs: number): void {
    this.removed.add(id);
    this.waiting.push(nowMs);
  }

  victim(nowMs: number, windowMs: number): string | undefined {
    return pickVictim(this.workers, this.removed, nowMs, windowMs);
  }
}
