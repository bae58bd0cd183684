import { type KubeConfig, Watch } from '@kubernetes/client-node';

/**
 * How long a watch may stay silent before the client gives up on the connection. client-node
 * aborts after 30 s without data, but a quiet resource sends nothing but a bookmark about once a
 * minute, so every idle watch died and was counted as a failure. Two minutes outlasts the
 * bookmark period; a dead peer that never closes is still noticed.
 */
export const WATCH_IDLE_TIMEOUT_MS = 120_000;

/** A client-node Watch with Orrery's idle timeout (client-node offers no option for it). */
export function newWatch(config: KubeConfig): Watch {
  const watch = new Watch(config);
  (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = WATCH_IDLE_TIMEOUT_MS;
  return watch;
}

/** client-node's idle timeout: the stream was healthy but quiet, so resume at once, no backoff. */
export function isIdleTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: string }).name === 'TimeoutError';
}
