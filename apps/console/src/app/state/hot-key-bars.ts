/**
 * Bars for the hot-keys chart, from the admin API's hot keys: each key's share of the keyspace's
 * (or function's) requests in percent, with how much of it may be over-counting, and whether it is
 * above the alert share. Pure, so the panel only draws.
 */

export interface HotKeyBar {
  /** The key (or its keyed hash), whole: the table and the tooltip show it. */
  key: string;
  /** What the chart's axis shows: the key cut to AXIS_LABEL_CHARS characters. */
  label: string;
  /** Requests per second. */
  rate: number;
  /** Share of the requests, percent, one decimal. */
  percent: number;
  /** Percentage points of `percent` that may belong to other keys (the Space-Saving error). */
  errorPercent: number;
  /** Above the alert share. */
  hot: boolean;
}

export const AXIS_LABEL_CHARS = 24;

const oneDecimal = (x: number) => Math.round(x * 10) / 10;

export function hotKeyBars(keys: ReadonlyArray<{ key: string; rate: number; share: number; rateError: number }>, totalRate: number, alertShare: number): HotKeyBar[] {
  return keys.map((k) => ({
    key: k.key,
    label: k.key.length > AXIS_LABEL_CHARS ? `${k.key.slice(0, AXIS_LABEL_CHARS - 1)}…` : k.key,
    rate: k.rate,
    percent: oneDecimal(k.share * 100),
    errorPercent: totalRate > 0 ? oneDecimal(Math.min(100, (k.rateError / totalRate) * 100)) : 0,
    hot: k.share > alertShare,
  }));
}

/** A rate as people read it: 12.3/s, 0.42/s, 1 200/s. */
export function formatRate(rate: number): string {
  if (rate >= 100) return `${Math.round(rate).toLocaleString('en-US').replaceAll(',', ' ')}/s`;
  if (rate >= 1) return `${oneDecimal(rate)}/s`;
  return `${Math.round(rate * 100) / 100}/s`;
}
