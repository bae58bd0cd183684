import { sql } from 'drizzle-orm';
import { functionRollups } from '@orrery/db';
import { fetchRouterStats } from '../clients/router-stats.ts';
import type { ApiServices } from '../context.ts';
import { counterDelta, minuteOf } from './counter-delta.ts';

type Counters = { requests: number; stickyRequests: number; missingKeys: number; teleports: number };

/**
 * Samples every router replica's counters and adds their growth to the current minute's row per
 * function, so the sticky history survives router restarts. The first sample of a replica only
 * sets the baseline. Run `collect()` every ~10 s (or `start()`); one collector per API process.
 */
export class StickyRollupCollector {
  private last = new Map<string, Counters>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly services: ApiServices) {}

  async collect(): Promise<number> {
    const now = this.services.now?.() ?? new Date();
    const minute = minuteOf(now);
    const replicas = await fetchRouterStats(this.services);
    const sums = new Map<string, Counters & { namespace: string; function: string }>();
    for (const rep of replicas) {
      if (!rep.ok) continue;
      for (const f of rep.functions) {
        const key = `${rep.url}|${f.namespace}/${f.function}`;
        const cur: Counters = { requests: f.requests ?? 0, stickyRequests: f.stickyRequests ?? 0, missingKeys: f.stickyKeyMissing ?? 0, teleports: f.teleports ?? 0 };
        const prev = this.last.get(key);
        this.last.set(key, cur);
        if (!prev) continue;
        const fk = `${f.namespace}/${f.function}`;
        let s = sums.get(fk);
        if (!s) sums.set(fk, (s = { namespace: f.namespace, function: f.function, requests: 0, stickyRequests: 0, missingKeys: 0, teleports: 0 }));
        s.requests += counterDelta(prev.requests, cur.requests);
        s.stickyRequests += counterDelta(prev.stickyRequests, cur.stickyRequests);
        s.missingKeys += counterDelta(prev.missingKeys, cur.missingKeys);
        s.teleports += counterDelta(prev.teleports, cur.teleports);
      }
    }
    for (const s of sums.values()) {
      await this.services.db.db
        .insert(functionRollups)
        .values({ minute, ...s })
        .onConflictDoUpdate({
          target: [functionRollups.namespace, functionRollups.function, functionRollups.minute],
          set: {
            requests: sql`${functionRollups.requests} + ${s.requests}`,
            stickyRequests: sql`${functionRollups.stickyRequests} + ${s.stickyRequests}`,
            missingKeys: sql`${functionRollups.missingKeys} + ${s.missingKeys}`,
            teleports: sql`${functionRollups.teleports} + ${s.teleports}`,
          },
        });
    }
    return sums.size;
  }

  start(intervalMs = 10_000): void {
    this.timer ??= setInterval(() => void this.collect().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
