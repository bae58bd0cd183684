/**
 * Polls `read` until `ok` holds of what it answers, for the platform tests that wait on a real
 * `orrery up`. A read that throws counts as "not yet" (a component still starting refuses
 * connections); after `timeoutMs` it fails naming what it waited for, the last value or error,
 * and `explain()` when given (a test's own story of what happened so far).
 */
export async function until<T>(
  read: () => Promise<T> | T,
  ok: (v: T) => boolean,
  timeoutMs: number,
  what: string,
  o: { everyMs?: number; explain?: () => string } = {},
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await read();
      if (ok(v)) return v;
      last = v;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms; last: ${JSON.stringify(last)?.slice(0, 600)}${o.explain?.() ?? ''}`);
    await new Promise((r) => setTimeout(r, o.everyMs ?? 250));
  }
}
