import { describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { isIdleTimeout, newWatch, WATCH_IDLE_TIMEOUT_MS } from './watch-stream.ts';

describe('watch stream', () => {
  it('outlasts the API server’s bookmark period (about a minute)', () => {
    const w = newWatch(new KubeConfig()) as unknown as { requestTimeoutMs: number };
    expect(w.requestTimeoutMs).toBe(WATCH_IDLE_TIMEOUT_MS);
    expect(WATCH_IDLE_TIMEOUT_MS).toBeGreaterThan(60_000);
  });

  it('tells client-node’s idle timeout from real failures', () => {
    expect(isIdleTimeout(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBe(true);
    expect(isIdleTimeout(new Error('ECONNRESET'))).toBe(false);
    expect(isIdleTimeout(Object.assign(new Error('Gone'), { statusCode: 410 }))).toBe(false);
    expect(isIdleTimeout(undefined)).toBe(false);
  });
});
