export interface StickyMinute {
  minute: string;
  requests: number;
  stickyRequests: number;
  missingKeys: number;
  teleports: number;
}

/**
 * The last `minutes` whole minutes up to `now`, one point each: rollups only exist for minutes
 * with traffic, and a chart that skips quiet minutes would draw a spike as a plateau.
 */
export function fillMinutes(points: readonly StickyMinute[], now: Date, minutes: number): StickyMinute[] {
  const byMinute = new Map(points.map((p) => [Math.floor(new Date(p.minute).getTime() / 60_000), p]));
  const end = Math.floor(now.getTime() / 60_000);
  const out: StickyMinute[] = [];
  for (let m = end - minutes + 1; m <= end; m++) {
    const p = byMinute.get(m);
    out.push(p ? { ...p, minute: new Date(m * 60_000).toISOString() } : { minute: new Date(m * 60_000).toISOString(), requests: 0, stickyRequests: 0, missingKeys: 0, teleports: 0 });
  }
  return out;
}
