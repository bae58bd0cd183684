/**
 * Admit: choose an endpoint of one revision and claim a slot on it in one step (RFC-0023 §6).
 * Default pick is least-outstanding among ready, non-quarantined endpoints under capacity;
 * with a sticky key it is the highest HRW rank among those (a saturated winner spills to the
 * next rank, it never waits on the sticky target). Pure: no I/O, no timers.
 */
import type { Endpoint } from './endpoint.ts';
import type { Fnv64State } from './fnv1a64.ts';
import { hrwBeats, hrwScoreInto } from './hrw.ts';

export type AdmitResult = 'admitted' | 'no_entry' | 'all_busy' | 'all_quarantined';

export interface Admission {
  result: AdmitResult;
  endpoint: Endpoint | undefined;
  /** Idempotent; a no-op when nothing was admitted. Call as a method (`a.release()`). */
  release(): void;
  /** Sticky only: the admitted endpoint is the key's HRW owner among all ready endpoints. */
  hit: boolean;
}

export type QuarantineCheck = (address: string) => boolean;

/** A refusal: nothing to release. */
class Refusal implements Admission {
  readonly endpoint = undefined;
  readonly hit = false;
  constructor(readonly result: AdmitResult) {}
  release(): void {}
}

/** A claimed slot; a class rather than a closure so admitting allocates one small object. */
class Claim implements Admission {
  readonly result = 'admitted' as const;
  private released = false;
  constructor(
    readonly endpoint: Endpoint,
    readonly hit: boolean,
  ) {}
  release(): void {
    if (this.released) return;
    this.released = true;
    this.endpoint.releaseSlot();
  }
}

const NO_ENTRY = new Refusal('no_entry');
const ALL_BUSY = new Refusal('all_busy');
const ALL_QUARANTINED = new Refusal('all_quarantined');

let scores = new Uint32Array(64);
let tried = new Uint8Array(32);
/** Rotating start for least-outstanding ties, so idle endpoints share light load. */
let cursor = 0;

function admitted(endpoint: Endpoint, hit: boolean): Admission {
  return new Claim(endpoint, hit);
}

function refused(endpoints: readonly Endpoint[], quarantined: QuarantineCheck | undefined): Admission {
  if (endpoints.length === 0) return NO_ENTRY;
  if (quarantined) {
    let all = true;
    for (let i = 0; i < endpoints.length; i++) {
      if (!quarantined(endpoints[i]!.address)) {
        all = false;
        break;
      }
    }
    if (all) return ALL_QUARANTINED;
  }
  return ALL_BUSY;
}

/**
 * @param endpoints the revision's ready endpoints (an immutable snapshot)
 * @param requestsPerPod capacity per endpoint, 0 = unlimited
 * @param keyState FNV state of `key ‖ 0x00` when the request carries a sticky key
 * @param quarantined endpoints to skip
 * @param avoid an endpoint to use only when nothing else can admit (a retry after a dial error)
 */
export function admit(
  endpoints: readonly Endpoint[],
  requestsPerPod: number,
  keyState?: Fnv64State,
  quarantined?: QuarantineCheck,
  avoid?: Endpoint,
): Admission {
  const n = endpoints.length;
  if (n === 0) return refused(endpoints, quarantined);
  return keyState ? admitSticky(endpoints, requestsPerPod, keyState, quarantined, avoid) : admitLeastOutstanding(endpoints, requestsPerPod, quarantined, avoid);
}

function admitLeastOutstanding(endpoints: readonly Endpoint[], limit: number, quarantined: QuarantineCheck | undefined, avoid: Endpoint | undefined): Admission {
  const n = endpoints.length;
  const start = cursor++ % n;
  if (cursor > 1 << 30) cursor = 0;
  for (let pass = avoid ? 0 : 1; pass < 2; pass++) {
    // Each failed claim (capacity reached between read and CAS) leaves that endpoint out of the next scan.
    for (let attempt = 0; attempt < n; attempt++) {
      let best: Endpoint | undefined;
      let bestLoad = Infinity;
      for (let j = 0; j < n; j++) {
        const e = endpoints[(start + j) % n]!;
        if (pass === 0 && e === avoid) continue;
        const load = e.inflight;
        if (limit > 0 && load >= limit) continue;
        if (load >= bestLoad) continue;
        if (quarantined && quarantined(e.address)) continue;
        best = e;
        bestLoad = load;
      }
      if (!best) break;
      if (best.tryClaim(limit)) return admitted(best, false);
    }
  }
  return refused(endpoints, quarantined);
}

function admitSticky(
  endpoints: readonly Endpoint[],
  limit: number,
  keyState: Fnv64State,
  quarantined: QuarantineCheck | undefined,
  avoid: Endpoint | undefined,
): Admission {
  const n = endpoints.length;
  if (scores.length < 2 * n) scores = new Uint32Array(4 * n);
  if (tried.length < n) tried = new Uint8Array(2 * n);
  let owner = 0;
  for (let i = 0; i < n; i++) {
    hrwScoreInto(keyState, endpoints[i]!.addressBytes, scores, i);
    tried[i] = 0;
    if (i > 0 && hrwBeats(scores[2 * i]!, scores[2 * i + 1]!, endpoints[i]!.address, scores[2 * owner]!, scores[2 * owner + 1]!, endpoints[owner]!.address)) owner = i;
  }
  for (let pass = avoid ? 0 : 1; pass < 2; pass++) {
    for (let attempt = 0; attempt < n; attempt++) {
      let best = -1;
      for (let i = 0; i < n; i++) {
        if (tried[i]) continue;
        const e = endpoints[i]!;
        if (pass === 0 && e === avoid) continue;
        if (limit > 0 && e.inflight >= limit) continue;
        if (quarantined && quarantined(e.address)) continue;
        if (best < 0 || hrwBeats(scores[2 * i]!, scores[2 * i + 1]!, e.address, scores[2 * best]!, scores[2 * best + 1]!, endpoints[best]!.address)) best = i;
      }
      if (best < 0) break;
      if (endpoints[best]!.tryClaim(limit)) return admitted(endpoints[best]!, best === owner);
      tried[best] = 1;
    }
  }
  return refused(endpoints, quarantined);
}
