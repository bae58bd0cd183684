/**
 * MurmurHash3's 64-bit finalizer (fmix64) on two unsigned 32-bit halves, no BigInt.
 * FNV-1a alone diffuses the last bytes of its input poorly into the high bits, so raw
 * FNV(key ‖ 0x00 ‖ address) scores rank addresses that differ only in a few trailing bytes
 * (pod IPs, loopback ports) with a fixed bias: one of ten loopback workers won 89 % more keys
 * than its share. fmix64 is a bijection with full avalanche, so the HRW ranking becomes even.
 */
import type { Fnv64State } from './fnv1a64.ts';

/** Low 64 bits of (ahi·2^32 + alo)·(bhi·2^32 + blo), written to out. 16-bit limbs keep every product exact. */
function mul64(out: Fnv64State, ahi: number, alo: number, bhi: number, blo: number): void {
  const a48 = ahi >>> 16, a32 = ahi & 0xffff, a16 = alo >>> 16, a00 = alo & 0xffff;
  const b48 = bhi >>> 16, b32 = bhi & 0xffff, b16 = blo >>> 16, b00 = blo & 0xffff;
  let c48 = 0, c32 = 0, c16 = 0, c00 = 0;
  c00 += a00 * b00;
  c16 += c00 >>> 16;
  c00 &= 0xffff;
  c16 += a16 * b00;
  c32 += c16 >>> 16;
  c16 &= 0xffff;
  c16 += a00 * b16;
  c32 += c16 >>> 16;
  c16 &= 0xffff;
  c32 += a32 * b00;
  c48 += c32 >>> 16;
  c32 &= 0xffff;
  c32 += a16 * b16;
  c48 += c32 >>> 16;
  c32 &= 0xffff;
  c32 += a00 * b32;
  c48 += c32 >>> 16;
  c32 &= 0xffff;
  c48 += a48 * b00 + a32 * b16 + a16 * b32 + a00 * b48;
  c48 &= 0xffff;
  out[0] = ((c48 << 16) | c32) >>> 0;
  out[1] = ((c16 << 16) | c00) >>> 0;
}

/** In place: h ^= h >> 33; h *= 0xff51afd7ed558ccd; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53; h ^= h >> 33. */
export function fmix64(s: Fnv64State): Fnv64State {
  s[1] = (s[1]! ^ (s[0]! >>> 1)) >>> 0;
  mul64(s, s[0]!, s[1], 0xff51afd7, 0xed558ccd);
  s[1] = (s[1] ^ (s[0]! >>> 1)) >>> 0;
  mul64(s, s[0]!, s[1], 0xc4ceb9fe, 0x1a85ec53);
  s[1] = (s[1] ^ (s[0]! >>> 1)) >>> 0;
  return s;
}
