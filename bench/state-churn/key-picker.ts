/**
 * Deterministic uniform key choice (xorshift32), one stream per client loop, so two runs with the
 * same seed send the same keys in the same order per loop, routed and raw alike.
 */
export function keyPicker(keys: number, seed: number): () => string {
  if (!Number.isInteger(keys) || keys < 1) throw new RangeError(`keys must be a positive integer, got ${keys}`);
  // Spread small seeds over the state space; 0 is xorshift's fixed point.
  let x = Math.imul(seed >>> 0, 0x9e3779b1) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return `k${x % keys}`;
  };
}
