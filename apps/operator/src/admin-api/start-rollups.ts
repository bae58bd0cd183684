import { collectKeyspaceRollup, StickyRollupCollector, type ApiServices } from '@orrery/api';

/**
 * The per-minute history behind the console's sticky and keyspace charts: samples the routers'
 * counters and statesvc's usage on a timer. A source that does not answer is skipped for that
 * tick (logged once per outage), so history has gaps rather than the operator failing.
 */
export function startRollups(services: ApiServices, intervalMs: number, log: (msg: string, fields?: Record<string, unknown>) => void): { stop(): void; tick(): Promise<void> } {
  const sticky = new StickyRollupCollector(services);
  const failing = new Set<string>();
  const note = (source: string, err: unknown) => {
    if (failing.has(source)) return;
    failing.add(source);
    log(`rollups: ${source} unavailable, history pauses until it answers`, { error: String((err as Error).message ?? err).split('\n')[0] });
  };
  let running = false;
  const tick = async () => {
    if (running) return; // a slow upstream must not stack ticks
    running = true;
    try {
      await sticky.collect().then(() => failing.delete('routers'), (err: unknown) => note('routers', err));
      if (services.statesvc) await collectKeyspaceRollup(services).then(() => failing.delete('statesvc'), (err: unknown) => note('statesvc', err));
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return { stop: () => clearInterval(timer), tick };
}
