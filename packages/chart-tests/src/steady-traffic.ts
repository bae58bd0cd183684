/**
 * Steady request traffic at a fixed rate, whatever the answers take (an open-loop load, as real
 * clients send): request i starts at start + i/rate. Every outcome is kept, so a test can say
 * exactly which request failed, when and why.
 */

/** What one request came to: `ok` only when the answer was the right one (status and body). */
export interface Outcome {
  name: string;
  ok: boolean;
  /** Status and body, or the error: what a failure message shows. */
  detail: string;
  /** Milliseconds since the traffic started, when the request was sent. */
  sentAt: number;
  /** Anything the check extracted (a counter's value). */
  value?: unknown;
}

export type Probe = { name: string; send: () => Promise<Omit<Outcome, 'name' | 'sentAt'>> };

export interface SteadyTraffic {
  /** Requests sent so far. */
  sent(): number;
  /** Outcomes so far (requests still in flight are missing). */
  outcomes(): readonly Outcome[];
  /** Sends no more, waits for the requests in flight and returns every outcome in sending order. */
  stop(): Promise<Outcome[]>;
}

/** Starts sending `perSecond` requests a second; `probeFor(i)` says what request i is. */
export function steadyTraffic(perSecond: number, probeFor: (i: number) => Probe): SteadyTraffic {
  if (!(perSecond > 0)) throw new Error(`perSecond must be positive, got ${perSecond}`);
  const start = Date.now();
  const results: Array<Outcome | undefined> = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let i = 0;

  const sendOne = (n: number) => {
    const probe = probeFor(n);
    const sentAt = Date.now() - start;
    const p = probe
      .send()
      .then(
        (r) => ({ ...r, name: probe.name, sentAt }),
        (err: unknown) => ({ name: probe.name, ok: false, detail: `error: ${err instanceof Error ? `${err.message}${err.cause ? ` (${String((err.cause as Error).message ?? err.cause)})` : ''}` : String(err)}`, sentAt }),
      )
      .then((o) => {
        results[n] = o;
      });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  // Catch up on every slot whose time has come, then sleep until the next one.
  const tick = () => {
    if (stopped) return;
    const due = Math.floor(((Date.now() - start) * perSecond) / 1000) + 1;
    while (i < due) sendOne(i++);
    timer = setTimeout(tick, Math.max(1, start + (i * 1000) / perSecond - Date.now()));
  };
  tick();

  return {
    sent: () => i,
    outcomes: () => results.filter((o): o is Outcome => o !== undefined),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      return results.filter((o): o is Outcome => o !== undefined);
    },
  };
}

/** One line per failure (at most `max`), for an assertion message. */
export function describeFailures(outcomes: readonly Outcome[], max = 20): string {
  const failed = outcomes.filter((o) => !o.ok);
  const lines = failed.slice(0, max).map((o) => `${(o.sentAt / 1000).toFixed(2)}s ${o.name}: ${o.detail}`);
  if (failed.length > max) lines.push(`… and ${failed.length - max} more`);
  return lines.join('\n');
}
