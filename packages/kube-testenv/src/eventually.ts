/**
 * Polls `probe` until it returns a truthy value, or throws after `timeoutMs` naming what it
 * waited for and the last value (or error) seen. Probe errors count as "not yet": against a real
 * API server a read can fail while it restarts.
 */
export async function eventually<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
