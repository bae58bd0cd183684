/**
 * The sticky chart's hit ratio per minute: the share of a sticky function's requests that carried
 * their sticky key, 1 − missing / (sticky + missing). The routers count keyed requests
 * (`stickyRequests`) and keyless ones (`missingKeys`) apart, so the denominator is their sum.
 * The live "hit ratio" elsewhere (owner hits / sticky requests) needs the routers' `stickyHits`,
 * which the per-minute rollups do not keep, so the history can only show this one.
 */
export interface KeyedCounts {
  stickyRequests: number;
  missingKeys: number;
}

/** null when the minute had no request to a sticky function (nothing to divide). */
export function keyHitRatio(p: KeyedCounts): number | null {
  const all = p.stickyRequests + p.missingKeys;
  return all > 0 ? 1 - p.missingKeys / all : null;
}

/** The points with their ratio as `keyHitRatio` (what the chart plots). */
export function withKeyHitRatio<P extends KeyedCounts>(points: readonly P[]): Array<P & { keyHitRatio: number | null }> {
  return points.map((p) => ({ ...p, keyHitRatio: keyHitRatio(p) }));
}

/** The ratio over a whole window (not the mean of the minutes: busy minutes weigh more). */
export function windowKeyHitRatio(points: readonly KeyedCounts[]): number | null {
  return keyHitRatio(points.reduce((s, p) => ({ stickyRequests: s.stickyRequests + p.stickyRequests, missingKeys: s.missingKeys + p.missingKeys }), { stickyRequests: 0, missingKeys: 0 }));
}
