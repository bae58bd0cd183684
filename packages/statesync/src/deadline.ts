import type { StateSyncTimers } from './options.ts';

export class CycleTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`statesync cycle exceeded its operation timeout of ${timeoutMs} ms`);
    this.name = 'CycleTimeoutError';
  }
}

/**
 * One deadline for a whole cycle. ioredis cannot cancel a command in flight, so the work checks the
 * deadline before every round trip and stops issuing commands once it has passed.
 */
export class CycleDeadline {
  expired = false;
  constructor(readonly timeoutMs: number) {}
  check(): void {
    if (this.expired) throw new CycleTimeoutError(this.timeoutMs);
  }
}

export async function withDeadline<T>(
  timeoutMs: number,
  timers: StateSyncTimers,
  work: (deadline: CycleDeadline) => Promise<T>,
): Promise<T> {
  const deadline = new CycleDeadline(timeoutMs);
  let handle: unknown;
  const timeout = new Promise<never>((_, reject) => {
    handle = timers.setTimeout(() => {
      deadline.expired = true;
      reject(new CycleTimeoutError(timeoutMs));
    }, timeoutMs);
  });
  const running = work(deadline);
  // When the timeout wins, the abandoned work may still fail later; that failure is expected.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, timeout]);
  } finally {
    timers.clearTimeout(handle);
  }
}
