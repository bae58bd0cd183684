/**
 * The `Date` response header value, rebuilt once a second: formatting a date per response would
 * cost more than the rest of the head. Without an argument the value is cached until a timer at
 * the next whole second forgets it (node caches its own Date header the same way), so a response
 * pays no clock read at all.
 */
let cached: string | undefined;

function forget(): void {
  cached = undefined;
}

function format(nowMs: number): string {
  return new Date(nowMs - (nowMs % 1000)).toUTCString();
}

export function httpDate(nowMs?: number): string {
  if (nowMs !== undefined) return format(nowMs);
  if (cached === undefined) {
    const now = Date.now();
    cached = format(now);
    setTimeout(forget, 1000 - (now % 1000)).unref();
  }
  return cached;
}
