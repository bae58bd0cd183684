import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyRefused, refuseRestOfBody } from '@orrery/control-http';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/**
 * A Node request as a Web `Request` whose body streams straight from the socket, capped at
 * `maxBytes` (past the cap the body stream errors). The body is read lazily: a handler
 * that never touches it leaves the request untouched, so Node discards it after the
 * response and the keep-alive connection stays usable (Readable.toWeb would start reading
 * at once and strand the rest of the body on the connection).
 */
export function toWebRequest(req: IncomingMessage, opts: { signal: AbortSignal; maxBytes: number }): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    } catch {
      /* a header the Fetch standard forbids: drop it rather than fail the request */
    }
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  } catch {
    url = new URL(req.url ?? '/', 'http://localhost');
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : requestBodyStream(req, opts.maxBytes);
  return new Request(url, { method, headers, body, signal: opts.signal, duplex: 'half' } as RequestInit);
}

function requestBodyStream(req: IncomingMessage, maxBytes: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve) => {
          const done = (fn: () => void) => {
            req.off('readable', onReadable);
            req.off('end', onEnd);
            req.off('error', onError);
            req.off('close', onClose);
            fn();
            resolve();
          };
          const onReadable = () => {
            const chunk = req.read() as Buffer | null;
            if (chunk === null) return; // 'end' follows when the body is over
            seen += chunk.length;
            done(() =>
              seen > maxBytes
                ? controller.error(new BodyTooLargeError(`request body exceeds ${maxBytes} bytes`))
                : controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length)),
            );
          };
          const onEnd = () => done(() => controller.close());
          const onError = (err: Error) => done(() => controller.error(err));
          const onClose = () => {
            if (!req.complete) done(() => controller.error(new Error('client closed the connection before the request body ended')));
          };
          if (req.readableEnded) return done(() => controller.close());
          req.on('readable', onReadable);
          req.on('end', onEnd);
          req.on('error', onError);
          req.on('close', onClose);
          onReadable();
        });
      },
      cancel() {
        // Throw the rest away, but keep reading it so the connection can carry the next request.
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads and drops whatever the handler left of the request body, so the connection can
 * carry the next request (and the client is not cut off mid-upload). Past `limit` more
 * bytes the connection is not worth saving: the body is refused and the connection closed
 * once the answer is out (refuseRestOfBody's linger, so the client still reads the answer).
 */
const discarding = new WeakSet<IncomingMessage>();

export function discardRestOfBody(req: IncomingMessage, res: ServerResponse, limit: number): void {
  if (req.complete || req.destroyed || discarding.has(req) || bodyRefused(req)) return;
  discarding.add(req);
  let dropped = 0;
  req.removeAllListeners('readable');
  const drop = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limit) {
      req.off('data', drop);
      // An HTTP/2 request is one stream of a shared connection: only the stream is reset.
      if (req.httpVersionMajor >= 2) req.destroy();
      else refuseRestOfBody(req, res);
    }
  };
  req.on('data', drop);
  req.resume();
}
