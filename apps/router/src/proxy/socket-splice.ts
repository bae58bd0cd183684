/**
 * Two sockets joined both ways, as an upgraded connection (WebSocket) runs through the router:
 * bytes are copied with backpressure (pipe), never parsed. A half-close is passed on (the other
 * side's write end closes after its queued bytes), an error on either side destroys both.
 * `onClosed` runs exactly once, when the first of the two closes — for the WebSocket that is
 * when the worker's slot is free again; the other side then gets `LINGER_MS` to flush and close
 * before it is destroyed.
 */
import type { Socket } from 'node:net';

/** How long the second socket may take to flush and close after the first one has. */
export const LINGER_MS = 5_000;
/**
 * TCP keep-alive probes start after this much silence: a peer that vanished without a FIN (a
 * dropped NAT entry, a killed VM) is found in minutes, not at the kernel's two-hour default.
 */
export const KEEPALIVE_PROBE_MS = 60_000;

export function spliceSockets(a: Socket, b: Socket, onClosed: () => void): { destroy(): void } {
  let closed = 0;
  let linger: NodeJS.Timeout | undefined;
  const destroyBoth = () => {
    a.destroy();
    b.destroy();
  };
  const onClose = (other: Socket) => () => {
    closed++;
    if (closed === 1) {
      onClosed();
      // Whatever the closed side sent is queued on the other: it goes out before the FIN.
      other.end();
      linger = setTimeout(() => other.destroy(), LINGER_MS);
      linger.unref();
    } else if (linger) {
      clearTimeout(linger);
    }
  };
  if (a.closed || b.closed) {
    // One side went away before the splice (its 'close' has been heard by nobody here).
    destroyBoth();
    setImmediate(onClosed);
    return { destroy: destroyBoth };
  }
  for (const s of [a, b]) {
    s.setTimeout(0);
    s.setNoDelay(true);
    s.setKeepAlive(true, KEEPALIVE_PROBE_MS);
    // 'close' follows every error; the peer goes with it.
    s.on('error', destroyBoth);
  }
  a.once('close', onClose(b));
  b.once('close', onClose(a));
  a.pipe(b);
  b.pipe(a);
  // A socket paused before the splice (a full early buffer) flows again: pipe resumes it.
  return { destroy: destroyBoth };
}
