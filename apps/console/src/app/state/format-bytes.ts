const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes for people (binary units, like the limits in a Function spec); exact numbers sit beside it. */
export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${UNITS[u]}`;
}
