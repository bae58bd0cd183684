/**
 * Kubernetes resource quantities (`250m`, `1.5Gi`, `2e3`, `128974848`) as numbers, enough for
 * the downward API's resourceFieldRef: the kubelet divides by the divisor and rounds up.
 */
const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(q.trim());
  if (!m) throw new Error(`not a resource quantity: "${q}"`);
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * SUFFIX[m[3] ?? '']!;
}

/**
 * The value a resourceFieldRef yields: ceil(quantity / divisor) as the kubelet computes it. CPU
 * is compared in millicores first (so `250m` with divisor `1` is `1`, with `1m` is `250`).
 */
export function resourceValue(resource: string, quantity: string | number, divisor: string | number | undefined): string {
  const d = parseQuantity(divisor ?? '1') || 1;
  const q = parseQuantity(quantity);
  if (resource.endsWith('.cpu')) {
    // MilliValue() rounds each side up to whole millicores before dividing.
    return String(Math.ceil(Math.ceil(q * 1000 - 1e-9) / Math.ceil(d * 1000 - 1e-9)));
  }
  return String(Math.ceil(Math.ceil(q - 1e-9) / Math.ceil(d - 1e-9)));
}
