/**
 * How a member caught up, from its own Prometheus counters: a follower that installed a
 * snapshot from the leader counts it in `etcd_network_snapshot_receive_success`, one receiving a
 * snapshot right now in `etcd_network_snapshot_receive_inflights_total`. A follower that caught
 * up from the log moves neither. The leader counts a transfer in flight in
 * `etcd_network_snapshot_send_inflights_total` (readable even when the follower's link is slowed).
 */
export interface SnapshotCounters {
  received: number;
  receiving: number;
  /** Snapshots this member (a leader) is sending right now (to `to` only, when given). */
  sending: number;
}

/** Sums every series of `name` (one per peer) in a Prometheus text exposition, or those whose labels contain `label`. */
export function sumSeries(text: string, name: string, label?: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    if (label && !rest.slice(0, rest.indexOf(' ')).includes(label)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return total;
}

/** `to`: a peer's hex member id, to count only the snapshots sent to it. */
export async function snapshotCounters(clientURL: string, to?: string): Promise<SnapshotCounters> {
  const res = await fetch(`${clientURL}/metrics`, { signal: AbortSignal.timeout(2000) });
  const text = await res.text();
  return {
    received: sumSeries(text, 'etcd_network_snapshot_receive_success'),
    receiving: sumSeries(text, 'etcd_network_snapshot_receive_inflights_total'),
    sending: sumSeries(text, 'etcd_network_snapshot_send_inflights_total', to ? `To="${to}"` : undefined),
  };
}
