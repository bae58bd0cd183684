/**
 * Once a second: close the concurrency windows, expire a stale activator answer, offer free slots
 * to waiting requests (quarantines expire silently, so nothing else would), and push the windows to
 * the autoscaler, whose answer says where the activator stands: requests waiting for a revision
 * that just left the path go now.
 */
import type { MessageLog } from '@orrery/log';
import type { ActivatorModes } from '../activator/activator-modes.ts';
import type { AutoscalerClient } from '../activator/autoscaler-client.ts';
import type { RevisionQueues } from '../activator/revision-queues.ts';
import type { RouterStats } from './router-stats.ts';

export interface StatsLoopOptions {
  stats: RouterStats;
  activator: ActivatorModes;
  queues: RevisionQueues;
  /** Absent: nothing to push to (`--autoscaler-url` not given). */
  autoscaler: AutoscalerClient | undefined;
  routerId: string;
  log: MessageLog;
  /** Whether a revision key is in the current route table; absent: revision stats are kept for good. */
  routed?: (key: string) => boolean;
}

export function startStatsLoop(o: StatsLoopOptions): { stop(): void } {
  let pushErrors = 0;
  const tick = setInterval(() => {
    o.stats.roll();
    if (o.routed) o.stats.forgetRetired(o.routed);
    o.activator.expire(Date.now());
    o.queues.drainAll();
    if (!o.autoscaler) return;
    const view = o.stats.view();
    o.autoscaler
      .pushStats({ router: o.routerId, at: view.at, revisions: view.revisions })
      .then((answer) => {
        for (const key of o.activator.apply(answer, Date.now())) o.queues.drain(key);
      })
      .catch((err: unknown) => {
        if (pushErrors++ % 60 === 0) o.log(`autoscaler stats push failed: ${String(err)}`, 'warn');
      });
  }, 1000);
  tick.unref();
  return { stop: () => clearInterval(tick) };
}
