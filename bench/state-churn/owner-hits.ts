/**
 * Sticky owner-hit accounting (the Fission seed's cache hit-ratio scenario): a request for a key
 * that was served before is an owner hit when it lands on the worker that served that key last,
 * and a move otherwise. The first request of a key has no owner to hit and counts as neither.
 * The last worker per key carries across phases, so a key's first request in the churn phase is
 * judged against where it was in the steady phase.
 */
export type Landing = 'first' | 'owner' | 'moved';

export interface LandingCounts {
  first: number;
  owner: number;
  moved: number;
}

export const noLandings = (): LandingCounts => ({ first: 0, owner: 0, moved: 0 });

export class OwnerTracker {
  private readonly lastWorker = new Map<string, string>();

  /** Where this request of `key` landed, judged against the key's previous request; then remembers `worker`. */
  land(key: string, worker: string): Landing {
    const before = this.lastWorker.get(key);
    this.lastWorker.set(key, worker);
    if (before === undefined) return 'first';
    return before === worker ? 'owner' : 'moved';
  }

  get keys(): number {
    return this.lastWorker.size;
  }
}

/** Owner hits among the requests that had an owner to hit; NaN when none had. */
export function ownerHitRatio(c: LandingCounts): number {
  const judged = c.owner + c.moved;
  return judged === 0 ? Number.NaN : c.owner / judged;
}
