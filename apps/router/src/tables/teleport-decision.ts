/**
 * Whether one sticky admission is a teleport, given what the owner table remembers about *that key*
 * (not a bucket shared with other keys). Pure: the StickyOwnerTable applies the outcome.
 */

/** What the table remembers about a key: where it was last admitted, and when that was written. */
export interface OwnerSeen {
  address: string;
  atMs: number;
}

export type AdmissionOutcome =
  /** No live record of the key (never seen, forgotten by the LRU, or stale): remember it, nothing moved. */
  | { kind: 'first' }
  /** Same endpoint as last time: no teleport; rewrite the stamp only when it is `touchAfterMs` old. */
  | { kind: 'same'; rewrite: boolean }
  /** A different endpoint than last time: one teleport, and the key's new owner is remembered. */
  | { kind: 'moved'; from: string }
  /**
   * The record is newer than this admission (a peer's clock is ahead, or an equal stamp whose smaller
   * address wins the merge): the record stays and nothing is counted, as every replica would decide.
   */
  | { kind: 'older' };

const FIRST: AdmissionOutcome = { kind: 'first' };
const SAME_KEEP: AdmissionOutcome = { kind: 'same', rewrite: false };
const SAME_REWRITE: AdmissionOutcome = { kind: 'same', rewrite: true };
const OLDER: AdmissionOutcome = { kind: 'older' };

/**
 * The merge order it must agree with: a newer stamp wins; equal stamps → the smaller address.
 * `touchAfterMs` keeps a busy key from dirtying the table (and Redis) on every request while still
 * refreshing its stamp well before it would go stale.
 */
export function decideAdmission(previous: OwnerSeen | undefined, address: string, atMs: number, touchAfterMs: number): AdmissionOutcome {
  if (previous === undefined) return FIRST;
  if (atMs < previous.atMs) return OLDER;
  if (previous.address === address) return atMs - previous.atMs >= touchAfterMs ? SAME_REWRITE : SAME_KEEP;
  if (atMs === previous.atMs && address > previous.address) return OLDER;
  return { kind: 'moved', from: previous.address };
}
