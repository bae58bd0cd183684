import { ApiException } from '@kubernetes/client-node';

export interface ThrottleRetryOptions {
  /** Tries in all (default 5). */
  attempts?: number;
  /** Wait when the answer names none (default 1 s); Retry-After is honoured up to `maxWaitMs`. */
  defaultWaitMs?: number;
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The wait an answer asks for, or undefined when the call should not be repeated: 429 (the API
 * server's priority and fairness, or a restarting server still loading it) is always safe to
 * repeat — nothing was done — as client-go does; so is a 503 that carries Retry-After.
 */
export function throttleWaitMs(err: unknown, defaultWaitMs: number, maxWaitMs: number): number | undefined {
  if (!(err instanceof ApiException)) return undefined;
  const header = Object.entries(err.headers ?? {}).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  if (err.code !== 429 && !(err.code === 503 && header !== undefined)) return undefined;
  const seconds = Number(header);
  return Math.min(maxWaitMs, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : defaultWaitMs);
}

/** Runs `call`, repeating it after a throttled answer (see throttleWaitMs). */
export async function withThrottleRetry<T>(call: () => Promise<T>, o: ThrottleRetryOptions = {}): Promise<T> {
  const attempts = o.attempts ?? 5;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const wait = attempt < attempts ? throttleWaitMs(err, o.defaultWaitMs ?? 1000, o.maxWaitMs ?? 10_000) : undefined;
      if (wait === undefined) throw err;
      await sleep(wait);
    }
  }
}
