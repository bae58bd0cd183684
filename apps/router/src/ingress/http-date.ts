/**
 * The `Date` response header value, rebuilt once a second (node caches its own the same way):
 * formatting a date per response would cost more than the rest of the head.
 */
let second = -1;
let value = '';

export function httpDate(nowMs: number = Date.now()): string {
  const s = Math.floor(nowMs / 1000);
  if (s !== second) {
    second = s;
    value = new Date(s * 1000).toUTCString();
  }
  return value;
}
