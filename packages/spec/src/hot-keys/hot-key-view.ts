import type { DecayedTopK } from './decayed-top-k.ts';

export interface HotKeyView {
  key: string;
  /** Requests per second (decayed). */
  rate: number;
  /** Part of the stream's requests, 0–1. */
  share: number;
  /** The rate may be this much too high. */
  rateError: number;
  /** Part of the key's requests (since it took its counter) that were observed flagged, 0–1. */
  flaggedShare: number;
}

export interface HotKeysView {
  /** Requests per second of the whole stream (exact). */
  rate: number;
  /** The Space-Saving bound (smallest counter) as a rate. */
  boundRate: number;
  keys: HotKeyView[];
}

/** Rounded so answers stay short and stable between polls (6 significant digits are far below the error bound). */
const round = (x: number): number => (x === 0 || !Number.isFinite(x) ? 0 : Number(x.toPrecision(6)));
const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));

/** The `limit` hottest keys of one summary at `nowMs`, as rates and shares (what statesvc and the router answer). */
export function hotKeysView(summary: DecayedTopK, nowMs: number, limit: number): HotKeysView {
  const factor = summary.rateFactor(nowMs);
  const total = summary.total(nowMs);
  return {
    rate: round(total * factor),
    boundRate: round(summary.minCount(nowMs) * factor),
    keys: summary.top(limit, nowMs).map((e) => {
      const since = e.count - e.error;
      return {
        key: e.key,
        rate: round(e.count * factor),
        share: total > 0 ? clamp01(round(e.count / total)) : 0,
        rateError: round(e.error * factor),
        flaggedShare: since > 0 ? clamp01(round(e.flagged / since)) : 0,
      };
    }),
  };
}
