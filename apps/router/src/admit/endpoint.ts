/**
 * One worker address of one revision with its in-flight counter. The object outlives endpoint
 * snapshots (the index reuses it while the address stays), so a release always decrements the
 * counter it claimed from, even after the snapshot it was admitted from was replaced.
 */

/** Bounded compare-and-swap retries before a claim gives up (and the scan moves on). */
const MAX_CAS_RETRIES = 8;

const encoder = new TextEncoder();

export class Endpoint {
  readonly address: string;
  /** UTF-8 of `address` exactly as written in the source: the HRW input. */
  readonly addressBytes: Uint8Array;
  /** Atomic counter so the claim stays correct if the table is ever shared with worker threads. */
  private readonly slots = new Int32Array(new SharedArrayBuffer(4));
  /** Consecutive dial timeouts; three make a quarantine. */
  dialTimeoutStrikes = 0;

  constructor(address: string) {
    this.address = address;
    this.addressBytes = encoder.encode(address);
  }

  get inflight(): number {
    return Atomics.load(this.slots, 0);
  }

  /** Claims one slot unless `limit` (> 0) is reached; limit 0 = unlimited. */
  tryClaim(limit: number): boolean {
    for (let i = 0; i < MAX_CAS_RETRIES; i++) {
      const cur = Atomics.load(this.slots, 0);
      if (limit > 0 && cur >= limit) return false;
      if (Atomics.compareExchange(this.slots, 0, cur, cur + 1) === cur) return true;
    }
    return false;
  }

  releaseSlot(): void {
    Atomics.sub(this.slots, 0, 1);
  }
}
