/**
 * A small deterministic PRNG (mulberry32): the same seed always gives the same stream of numbers
 * in [0, 1). For simulations and statistical tests that must replay a failing run from its seed
 * and hold their bounds as a property of the code, not of luck. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
