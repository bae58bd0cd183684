/**
 * Issue 21 item 10, measured over the pure parts the data plane uses: the sticky key's FNV-1a-64,
 * the HRW owner among the ready endpoints (admit/hrw.ts) and the StickyOwnerTable's decision.
 * The seed's 256 shared buckets are modelled here too, to pin the measurement that made Orrery
 * count per key instead (docs/router.md, *Deviations*).
 */
import { describe, expect, it } from 'vitest';
import { fnv1a64 } from '../admit/fnv1a64.ts';
import { hrwOwner } from '../admit/hrw.ts';
import { StickyOwnerTable } from './sticky-owner-table.ts';

const KEYS = Array.from({ length: 2_000 }, (_, i) => `session-${i}`);
const WORKERS = ['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080', '10.0.0.4:8080'];
const REQUESTS = 20_000;

/** A deterministic pseudo-random load (xorshift32) over KEYS. */
function load(n: number, seed: number): string[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return KEYS[x % KEYS.length]!;
  });
}

const hashOf = new Map(KEYS.map((k) => [k, fnv1a64(k)]));

/** Counts teleports as a detector sees them, admitting each key to its HRW owner among `workers`. */
interface Detector {
  admit(key: string, address: string, atMs: number): boolean;
}

function perKey(): Detector {
  let now = 0;
  const table = new StickyOwnerTable({ now: () => now });
  return {
    admit(key, address, atMs) {
      now = atMs;
      const h = hashOf.get(key)!;
      return table.record('default/cart', Number(h >> 32n), Number(h & 0xffffffffn), address, atMs) !== undefined;
    },
  };
}

/** The seed's stickyLast: 256 buckets by the low byte of the key hash, each remembering one address. */
function seedBuckets(): Detector {
  const last = new Map<number, string>();
  return {
    admit(key, address) {
      const bucket = Number(hashOf.get(key)! & 0xffn);
      const before = last.get(bucket);
      last.set(bucket, address);
      return before !== undefined && before !== address;
    },
  };
}

function serve(d: Detector, keys: readonly string[], workers: readonly string[], clock: { ms: number }): number {
  let teleports = 0;
  for (const key of keys) if (d.admit(key, workers[hrwOwner(key, workers)]!, ++clock.ms)) teleports++;
  return teleports;
}

describe('teleports with 2 000 keys on 4 workers (20 000 requests)', () => {
  const requests = load(REQUESTS, 42);

  it('per key: ≤ 1 % of sticky requests while the workers are stable', () => {
    const clock = { ms: 1_000 };
    expect(serve(perKey(), requests, WORKERS, clock)).toBeLessThanOrEqual(0.01 * REQUESTS);
  });

  it('per key: removing a worker counts its keys once (0.8×–1.2×), and a second pass counts none', () => {
    const clock = { ms: 1_000 };
    const d = perKey();
    serve(d, requests, WORKERS, clock);
    const removed = WORKERS[0]!;
    const owned = KEYS.filter((k) => WORKERS[hrwOwner(k, WORKERS)] === removed).length;
    expect(owned).toBeGreaterThan(400); // about a quarter of the keys: the test means something
    const left = WORKERS.slice(1);
    const moved = serve(d, KEYS, left, clock);
    expect(moved).toBeGreaterThanOrEqual(0.8 * owned);
    expect(moved).toBeLessThanOrEqual(1.2 * owned);
    expect(serve(d, KEYS, left, clock)).toBe(0);
    expect(serve(d, requests, left, clock)).toBe(0);
  });

  it('the seed’s 256 shared buckets count most stable requests as teleports (the measurement behind the deviation)', () => {
    const clock = { ms: 1_000 };
    const share = serve(seedBuckets(), requests, WORKERS, clock) / REQUESTS;
    expect(share).toBeGreaterThan(0.6);
    expect(share).toBeLessThan(0.7);
  });
});
