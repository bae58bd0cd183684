/**
 * Shutdown, the last wiring step on both backends: the first SIGTERM or SIGINT logs why, runs the
 * backend's stop (which closes what it started, in order), flushes the spans and exits 0.
 */
import type { Tracing } from '@orrery/tracing';

export function shutdownOnSignals(o: { log: (msg: string) => void; what: string; stop: () => Promise<void>; tracing: Tracing | undefined }): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    o.log(`${signal}: ${o.what}`);
    await o.stop();
    await o.tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
