/**
 * Rendezvous (highest random weight) hashing: score(key, endpoint) = fmix64(FNV-1a-64(key ‖ 0x00 ‖ address)),
 * compared as an unsigned 64-bit integer, highest wins, ties to the smaller address (docs/architecture.md "Hashing", with the
 * fmix64 finalizer: see fmix64.ts for why raw FNV ranks similar addresses unevenly).
 * Adding an endpoint only steals keys for itself; removing one only moves its own keys.
 */
import { fmix64 } from './fmix64.ts';
import { fnv64Init, fnv64Update, fnv64UpdateByte, type Fnv64State } from './fnv1a64.ts';

const encoder = new TextEncoder();

/** Hash state of `key ‖ 0x00`, computed once per request and continued per endpoint. */
export function hrwKeyState(keyBytes: Uint8Array, out: Fnv64State = new Uint32Array(2)): Fnv64State {
  fnv64Init(out);
  fnv64Update(out, keyBytes);
  return hrwKeyStateOfKeyHash(out[0]!, out[1]!, out);
}

/**
 * The same state from the key's FNV-1a-64 (FNV runs on: the state after the key is its hash), for
 * callers that already hashed the key to pick its revision: the key's bytes are not hashed twice.
 */
export function hrwKeyStateOfKeyHash(keyHashHi: number, keyHashLo: number, out: Fnv64State = new Uint32Array(2)): Fnv64State {
  out[0] = keyHashHi;
  out[1] = keyHashLo;
  return fnv64UpdateByte(out, 0);
}

const scratch = new Uint32Array(2);

/** Writes the endpoint's score into `scores[2i], scores[2i+1]` (hi, lo). */
export function hrwScoreInto(keyState: Fnv64State, addressBytes: Uint8Array, scores: Uint32Array, i: number): void {
  scratch[0] = keyState[0]!;
  scratch[1] = keyState[1]!;
  fnv64Update(scratch, addressBytes);
  fmix64(scratch);
  scores[2 * i] = scratch[0];
  scores[2 * i + 1] = scratch[1];
}

/** The score as a bigint (tests and cold paths). */
export function hrwScore(key: string, address: string): bigint {
  const st = hrwKeyState(encoder.encode(key));
  fnv64Update(st, encoder.encode(address));
  fmix64(st);
  return (BigInt(st[0]!) << 32n) | BigInt(st[1]!);
}

/** True when candidate (hi, lo, address) outranks the current best. */
export function hrwBeats(hi: number, lo: number, address: string, bestHi: number, bestLo: number, bestAddress: string): boolean {
  if (hi !== bestHi) return hi > bestHi;
  if (lo !== bestLo) return lo > bestLo;
  return address < bestAddress;
}

/** Index of the HRW owner of `key` among `addresses` (−1 when empty). Reference implementation for tests. */
export function hrwOwner(key: string, addresses: readonly string[]): number {
  let best = -1;
  let bestScore = 0n;
  for (let i = 0; i < addresses.length; i++) {
    const s = hrwScore(key, addresses[i]!);
    if (best < 0 || s > bestScore || (s === bestScore && addresses[i]! < addresses[best]!)) {
      best = i;
      bestScore = s;
    }
  }
  return best;
}

/** Fast owner index over pre-encoded addresses (no BigInt); same ranking as `hrwOwner`. */
export function hrwOwnerIndex(keyState: Fnv64State, addresses: readonly string[], addressBytes: readonly Uint8Array[]): number {
  let best = -1;
  let bestHi = 0;
  let bestLo = 0;
  const st = new Uint32Array(2);
  for (let i = 0; i < addressBytes.length; i++) {
    st[0] = keyState[0]!;
    st[1] = keyState[1]!;
    fnv64Update(st, addressBytes[i]!);
    fmix64(st);
    if (best < 0 || hrwBeats(st[0], st[1], addresses[i]!, bestHi, bestLo, addresses[best]!)) {
      best = i;
      bestHi = st[0];
      bestLo = st[1];
    }
  }
  return best;
}
