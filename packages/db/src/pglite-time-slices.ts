import type { PGlite } from '@electric-sql/pglite';

/**
 * PGlite runs a statement synchronously inside WebAssembly and settles its promise at once, so a
 * chain of awaited statements — a reconcile's reads, a resync over every object, several
 * reconcilers interleaved — never lets the event loop turn: measured here, 400 reads in a row
 * (~250 ms) gave the loop no turn at all, and in the operator such runs delayed reading a new
 * worker's `listening` line and answering HTTP by 100–315 ms (docs/performance.md, coldstart).
 *
 * Once the statements since the loop's last turn have held the thread for `sliceMs`, the next one
 * waits for a turn (`setImmediate`) first. A statement inside a transaction may wait too; the
 * transaction keeps PGlite's lock meanwhile, so other callers queue behind it as before.
 */
// 1 ms measured best in bench/coldstart (docs/performance.md): 4 and 2 ms cut the deploy tail as
// well but delayed a pool cold start by up to a slice at each of its hops; yielding costs ~3–8 %
// of a chain's time.
export const SLICE_MS = 1;

export interface TimeSliceClock {
  now(): number;
  /** Resolves after the event loop has turned. */
  turn(): Promise<void>;
}

const realClock: TimeSliceClock = {
  now: () => performance.now(),
  turn: () => new Promise<void>((resolve) => setImmediate(resolve)),
};

/** Whether the next statement should give the event loop a turn first (pure). */
export function sliceSpent(lastTurnAt: number, now: number, sliceMs: number): boolean {
  return now - lastTurnAt >= sliceMs;
}

type RawExec = PGlite['execProtocolRaw'];

/** Makes `client` give the event loop a turn every `sliceMs` of statements (every protocol message goes through execProtocolRaw). */
export function sliceStatements(client: PGlite, sliceMs = SLICE_MS, clock: TimeSliceClock = realClock): void {
  const exec: RawExec = client.execProtocolRaw.bind(client);
  let lastTurnAt = clock.now();
  const sliced: RawExec = async (message, options) => {
    if (sliceSpent(lastTurnAt, clock.now(), sliceMs)) {
      await clock.turn();
      lastTurnAt = clock.now();
    }
    return exec(message, options);
  };
  client.execProtocolRaw = sliced;
}
