import { describe, expect, it } from 'vitest';
import type { ReplicaStats, RouterRevisionStats } from '../../clients/router-stats.ts';
import { sumRevisionStats } from './sum-revision-stats.ts';

const rev = (revision: string, over: Partial<RouterRevisionStats> = {}): RouterRevisionStats => ({
  namespace: 'default', function: 'web', revision, averageConcurrency: 1, requests: 10, windowMs: 1000, inflight: 1, queued: 0, ...over,
});
const replica = (revisions: RouterRevisionStats[], ok = true): ReplicaStats => ({ url: 'http://r', ok, functions: [], revisions });

describe('sumRevisionStats', () => {
  it('sums each revision over replicas and turns the window into requests per second', () => {
    const out = sumRevisionStats([replica([rev('web-00001'), rev('web-00002', { requests: 5, windowMs: 500, averageConcurrency: 0.25 })]), replica([rev('web-00001', { inflight: 2, queued: 3 })])], 'default', 'web');
    expect(out).toEqual([
      { revision: 'web-00001', rps: 20, concurrency: 2, inflight: 3, queued: 3 },
      { revision: 'web-00002', rps: 10, concurrency: 0.25, inflight: 1, queued: 0 },
    ]);
  });
  it('ignores other functions, other namespaces, silent replicas and empty windows', () => {
    const out = sumRevisionStats(
      [replica([rev('x-00001', { function: 'x' }), rev('web-00001', { namespace: 'other' }), rev('web-00001', { windowMs: 0 })]), replica([rev('web-00001')], false)],
      'default',
      'web',
    );
    expect(out).toEqual([{ revision: 'web-00001', rps: 0, concurrency: 1, inflight: 1, queued: 0 }]);
  });
});
