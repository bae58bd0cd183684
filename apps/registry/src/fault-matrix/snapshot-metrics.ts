/**
 * How a member caught up, from its own Prometheus counters: a follower that installed a
 * snapshot from the leader counts it in `etcd_network_snapshot_receive_success`, one receiving a
 * snapshot right now in `etcd_network_snapshot_receive_inflights_total`. A follower that caught
 * up from the log moves neither.
 */
export interface SnapshotCounters {
  received: number;
  receiving: number;
}

/** Sums every series of `name` (one per sending peer) in a Prometheus text exposition. */
export function sumSeries(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return total;
}

export async function snapshotCounters(clientURL: string): Promise<SnapshotCounters> {
  const res = await fetch(`${clientURL}/metrics`, { signal: AbortSignal.timeout(2000) });
  const text = await res.text();
  return {
    received: sumSeries(text, 'etcd_network_snapshot_receive_success'),
    receiving: sumSeries(text, 'etcd_network_snapshot_receive_inflights_total'),
  };
}
