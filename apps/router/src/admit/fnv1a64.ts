/**
 * FNV-1a 64-bit over bytes, computed on two unsigned 32-bit halves so the hot path never
 * touches BigInt. docs/architecture.md "Hashing" pins this hash for the sticky revision pick and the HRW score:
 * every replica and every test must agree on the exact bytes.
 */

export const FNV64_OFFSET_HI = 0xcbf29ce4;
export const FNV64_OFFSET_LO = 0x84222325;

/** A running FNV-1a 64 state: [hi, lo], both unsigned 32-bit. Reused to avoid allocations. */
export type Fnv64State = Uint32Array;

export function fnv64Init(state: Fnv64State = new Uint32Array(2)): Fnv64State {
  state[0] = FNV64_OFFSET_HI;
  state[1] = FNV64_OFFSET_LO;
  return state;
}

/**
 * Folds bytes[start, end) into state. The prime is 2^40 + 0x1b3, so
 * h·p = h·0x1b3 + (h << 40): the low half gets lo·0x1b3, the high half hi·0x1b3 + carry + (lo << 8).
 */
export function fnv64Update(state: Fnv64State, bytes: Uint8Array, start = 0, end = bytes.length): Fnv64State {
  let hi = state[0]!;
  let lo = state[1]!;
  for (let i = start; i < end; i++) {
    lo = (lo ^ bytes[i]!) >>> 0;
    const loProduct = lo * 0x1b3; // < 2^41: exact in a double
    const carry = Math.floor(loProduct / 4294967296);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = loProduct >>> 0;
  }
  state[0] = hi;
  state[1] = lo;
  return state;
}

/** Folds one byte (the 0x00 separator of the HRW input). */
export function fnv64UpdateByte(state: Fnv64State, byte: number): Fnv64State {
  let lo = (state[1]! ^ byte) >>> 0;
  const loProduct = lo * 0x1b3;
  const carry = Math.floor(loProduct / 4294967296);
  state[0] = (Math.imul(state[0]!, 0x1b3) + carry + (lo << 8)) >>> 0;
  lo = loProduct >>> 0;
  state[1] = lo;
  return state;
}

const encoder = new TextEncoder();

/** Convenience (tests, cold paths): the full 64-bit hash of a string's UTF-8 bytes as a bigint. */
export function fnv1a64(input: string | Uint8Array): bigint {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input;
  const s = fnv64Update(fnv64Init(), bytes);
  return (BigInt(s[0]!) << 32n) | BigInt(s[1]!);
}

/** (hi·2^32 + lo) mod m without BigInt; exact while m < 2^26 (percent totals are far below). */
export function fnv64Mod(hi: number, lo: number, m: number): number {
  return (((hi % m) * (4294967296 % m)) % m + (lo % m)) % m;
}
