/**
 * Shutdown, the last wiring step: SIGTERM or SIGINT drains the router (with `drainMs` it serves on
 * that long, every answer saying Connection: close), flushes the drained requests' spans and exits.
 * A shutdown that hangs is cut short 15 s after the drain.
 */
import type { MessageLog } from '@orrery/log';
import type { Tracing } from '@orrery/tracing';
import type { RunningRouter } from './start-router.ts';

export function shutdownOnSignals(router: RunningRouter, o: { drainMs: number; tracing: Tracing | undefined; log: MessageLog }): void {
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    o.log(`${signal}: draining`);
    const force = setTimeout(() => process.exit(1), o.drainMs + 15_000);
    force.unref();
    router
      .close({ drainMs: o.drainMs })
      // The spans of the drained requests are exported before the process goes.
      .then(() => o.tracing?.shutdown())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          o.log(`shutdown: ${String(err)}`, 'error');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
