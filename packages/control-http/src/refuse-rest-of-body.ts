import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused connection stays half-closed so the client can read the answer. */
export const REFUSED_BODY_LINGER_MS = 2000;

const refused = new WeakSet<IncomingMessage>();

/**
 * A body the server will not take (too large, unauthorized) is never read further: the socket
 * stops reading, the answer goes out with `Connection: close`, and the socket half-closes. It is
 * destroyed only after a short linger (nginx's lingering close, bounded): destroying a socket with
 * unread input sends a RST, and a RST can overtake the answer, so the client saw EPIPE or
 * ECONNRESET instead of the 413. HTTP/1 only; an HTTP/2 stream is reset on its own.
 */
export function refuseRestOfBody(req: IncomingMessage, res: ServerResponse): void {
  if (refused.has(req)) return;
  refused.add(req);
  const socket = req.socket as Socket & { destroySoon?: () => void };
  socket.pause();
  const linger = () => {
    socket.end();
    setTimeout(() => socket.destroy(), REFUSED_BODY_LINGER_MS).unref();
  };
  if (!res.headersSent) {
    res.setHeader('connection', 'close');
    // node's server calls destroySoon once an answer with Connection: close is written.
    socket.destroySoon = linger;
  } else if (res.writableFinished) {
    linger();
  } else {
    res.once('finish', linger);
  }
}

/** Whether refuseRestOfBody has given up on this request's body (nothing may read it now). */
export function bodyRefused(req: IncomingMessage): boolean {
  return refused.has(req);
}
