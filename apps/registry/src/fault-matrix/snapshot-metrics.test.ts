import { describe, expect, it } from 'vitest';
import { sumSeries } from './snapshot-metrics.ts';

const TEXT = [
  '# HELP etcd_network_snapshot_send_inflights_total Total number of snapshots in flight',
  '# TYPE etcd_network_snapshot_send_inflights_total gauge',
  'etcd_network_snapshot_send_inflights_total{To="aa"} 1',
  'etcd_network_snapshot_send_inflights_total{To="bb"} 2',
  'etcd_network_snapshot_send_inflights_total_extra{To="aa"} 7',
  'etcd_network_snapshot_receive_success{From="cc"} 3',
  'etcd_network_snapshot_receive_success 4',
].join('\n');

describe('sumSeries', () => {
  it.each([
    ['every series of a name, not of a longer name, not comments', 'etcd_network_snapshot_send_inflights_total', undefined, 3],
    ['the series of one peer', 'etcd_network_snapshot_send_inflights_total', 'To="bb"', 2],
    ['a peer with no series', 'etcd_network_snapshot_send_inflights_total', 'To="zz"', 0],
    ['labelled and unlabelled series', 'etcd_network_snapshot_receive_success', undefined, 7],
    ['a name that is absent', 'etcd_network_snapshot_receive_inflights_total', undefined, 0],
  ])('%s', (_what, name, label, want) => {
    expect(sumSeries(TEXT, name, label)).toBe(want);
  });
});
