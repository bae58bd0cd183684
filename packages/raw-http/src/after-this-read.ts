/**
 * Work to run once the socket read being handled is done with: at the end of its callback
 * (reads through shared-read-buffer.ts), or — outside such a callback — on the next tick.
 *
 * Why: the raw ingress checks, after the callback that wrote a response head, whether the head
 * is still waiting for a body (raw-exchange.ts). Through a process.nextTick per response that
 * check made node run its tick queue after every upstream read, and on this 2-vCPU VM that work
 * after the client's write delays the client it woke: dropping it took the router's p50 at 1
 * connection down by ~8 µs and 1.5–6 µs of CPU per request (performance.md, router,
 * "2026-12-07: reads through one buffer"). At the end of the read callback the same check costs
 * a counter and an array.
 *
 * Order is kept: promise callbacks queued by the read's handlers still run after it, before any
 * setImmediate the deferred work schedules.
 */
let depth = 0;
const pending: Array<() => void> = [];

/** Runs `fn` when the current read's callback returns, or on the next tick outside one. */
export function afterThisRead(fn: () => void): void {
  if (depth > 0) pending.push(fn);
  else process.nextTick(fn);
}

/** Hands one read to its receiver; what the receiver deferred with afterThisRead runs right after. */
export function handleRead(receiver: (chunk: Buffer) => void, chunk: Buffer): void {
  depth++;
  try {
    receiver(chunk);
  } finally {
    depth--;
    if (depth === 0 && pending.length > 0) runPending();
  }
}

function runPending(): void {
  // A deferred function that defers again (it should not) runs on the next tick, not in this loop.
  const due = pending.splice(0);
  for (const fn of due) fn();
}
