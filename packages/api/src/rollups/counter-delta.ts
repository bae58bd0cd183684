/** Growth of a monotonic counter between samples; a drop means the replica restarted (count from 0). */
export function counterDelta(previous: number | undefined, current: number): number {
  if (previous === undefined) return 0;
  return current >= previous ? current - previous : current;
}

/** Start of the UTC minute containing `at`. */
export function minuteOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000);
}
