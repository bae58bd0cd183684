/**
 * The change feed as a picture: the retained window as a strip from its oldest change to now, and
 * each of the newest changes as a tick where it happened. Pure, so the geometry is unit-tested.
 */
import type { StateChangeOp as ChangeOp } from '@orrery/spec';

export interface FeedTick {
  seq: number;
  key: string;
  op: ChangeOp;
  /** Position on the strip, 0 = the oldest retained change, 1 = now. */
  x: number;
  /** How long ago, in ms. */
  ageMs: number;
}

export interface FeedStrip {
  /** How far back the window reaches (ms), or null when nothing is retained. */
  spanMs: number | null;
  ticks: FeedTick[];
}

export function feedStrip(oldestAt: number | null, recent: ReadonlyArray<{ seq: number; key: string; op: ChangeOp; at: number }>, nowMs: number): FeedStrip {
  if (oldestAt === null) return { spanMs: null, ticks: [] };
  // A clock a little ahead on the statestore's side must not draw ticks past "now".
  const spanMs = Math.max(0, nowMs - oldestAt);
  const ticks = recent.map((c) => ({
    seq: c.seq,
    key: c.key,
    op: c.op,
    x: spanMs === 0 ? 1 : Math.min(1, Math.max(0, (c.at - oldestAt) / spanMs)),
    ageMs: Math.max(0, nowMs - c.at),
  }));
  return { spanMs, ticks };
}

/** "now", "12 s", "4 min 3 s", "2 h 5 min", "3 d 4 h": two units at most. */
export function formatAge(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 1) return 'now';
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** The feed's retention in words, as statesvc's two flags combine (the tighter bound wins). */
export function formatRetention(maxAgeMs: number, maxEvents: number): string {
  const events = `${maxEvents.toLocaleString('en-US')} changes`;
  if (maxAgeMs === 0 && maxEvents === 0) return 'every change, forever';
  if (maxAgeMs === 0) return `the newest ${events}`;
  if (maxEvents === 0) return `${formatAge(maxAgeMs)} of changes`;
  return `${formatAge(maxAgeMs)} of changes, at most ${events}`;
}
