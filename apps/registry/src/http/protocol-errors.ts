import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { newRequestId, sendEnvelope, STATUS_BY_CODE, type ErrorCode } from './envelope.ts';

/**
 * Requests Node's HTTP server would refuse with an answer of its own — a bare `400 Bad Request`
 * (or 431, 408, 413, 417) with no body — answered with the registry's envelope instead, so every
 * answer a client sees is `{code, message, data, requestId}` with a code of the wire contract.
 */

function describeParseError(err: NodeJS.ErrnoException & { reason?: string }): { code: ErrorCode; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'bad_request', message: 'the request line and headers are larger than the server accepts (16 KiB); send a shorter query or fewer headers' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'the chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'bad_request', message: 'the request did not arrive completely in time' };
    default:
      return { code: 'bad_request', message: `the request is not valid HTTP/1.1${err.reason ? ` (${err.reason.replace(/[^\x20-\x7e]/g, '?').slice(0, 120)})` : ''}; see docs/registry.md for the API` };
  }
}

/** The envelope written straight to a socket whose request could not be parsed. */
function rawEnvelope(code: ErrorCode, message: string): string {
  const requestId = newRequestId();
  const body = JSON.stringify({ code, message, data: {}, requestId });
  const status = STATUS_BY_CODE[code];
  return (
    `HTTP/1.1 ${status} ${code === 'payload_too_large' ? 'Payload Too Large' : 'Bad Request'}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    `x-request-id: ${requestId}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/**
 * Answers unparseable requests (`clientError`) and unmet `Expect` headers with the envelope;
 * `onRefused` counts them (the public listener's metrics).
 */
export function answerProtocolErrors(server: Server, onRefused: (code: ErrorCode) => void = () => {}): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Node's own rule: answer only when no part of a response is on the wire yet.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { code, message } = describeParseError(err);
    onRefused(code);
    socket.end(rawEnvelope(code, message), () => socket.destroy());
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    onRefused('bad_request');
    res.setHeader('connection', 'close');
    sendEnvelope(res, newRequestId(), 'bad_request', `Expect: ${String(req.headers.expect).slice(0, 80)} is not supported; only 100-continue is`);
  });
}

/**
 * HTTP/1.1 requires a Host header (RFC 9112 §3.2). The listeners are created with
 * `requireHostHeader: false` so that the handlers, not Node, answer its absence.
 */
export function hostMissing(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined;
}

export const HOST_MISSING_MESSAGE = 'an HTTP/1.1 request needs a Host header';
