import type { StateSyncTimers } from './options.ts';

/** One operation (a syncable's pull, or its push) ran past `opTimeoutMs`. */
export class OpTimeoutError extends Error {
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
  ) {
    super(`statesync ${operation} exceeded its operation timeout of ${timeoutMs} ms`);
    this.name = 'OpTimeoutError';
  }
}

/**
 * The deadline of one operation. ioredis cannot cancel a command in flight, so the work checks the
 * deadline before every round trip and stops issuing commands once it has passed.
 */
export class OpDeadline {
  expired = false;
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
  ) {}
  check(): void {
    if (this.expired) throw new OpTimeoutError(this.operation, this.timeoutMs);
  }
}

/**
 * Runs `work` under its own deadline (the seed's per-operation `context.WithTimeout` around each
 * Pull and each Push): rejects with OpTimeoutError when `timeoutMs` passes first, and marks the
 * deadline expired so the abandoned work issues no further commands.
 */
export async function withDeadline<T>(
  operation: string,
  timeoutMs: number,
  timers: StateSyncTimers,
  work: (deadline: OpDeadline) => Promise<T>,
): Promise<T> {
  const deadline = new OpDeadline(operation, timeoutMs);
  let handle: unknown;
  const timeout = new Promise<never>((_, reject) => {
    handle = timers.setTimeout(() => {
      deadline.expired = true;
      reject(new OpTimeoutError(operation, timeoutMs));
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
