/**
 * An object's age as `kubectl get` prints it (ShortHumanDuration): 5s, 3m, 2h, 4d, 2y — one
 * unit, rounded down. A missing or unreadable timestamp is `<unknown>`; a time in the future
 * (clock skew between machines) is `<invalid>` beyond one second, else `0s`.
 */
export function formatAge(creationTimestamp: string | undefined, now: Date): string {
  if (!creationTimestamp) return '<unknown>';
  const created = Date.parse(creationTimestamp);
  if (Number.isNaN(created)) return '<unknown>';
  const ms = now.getTime() - created;
  if (ms < -1000) return '<invalid>';
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 365 * 2) return `${days}d`;
  return `${Math.floor(days / 365)}y`;
}
