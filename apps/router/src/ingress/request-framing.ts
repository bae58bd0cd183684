/**
 * The checks on a request's Host and framing headers that node's parser lets through but the
 * router must not forward (RFC 9112 §3.2, §6). node:http serves `--ingress node` and every
 * connection the raw ingress hands over — which includes every request with a second Host or
 * any Transfer-Encoding (request-head-parser.ts) — so running this in the node adapter gives
 * both ingresses the same answers, and costs the raw ingress' common path nothing. Pure.
 *
 *   more than one Host line              → 400 duplicate_host
 *   Transfer-Encoding other than a single chunked → see transfer-coding.ts (400 / 501)
 */
import { checkTransferEncoding } from './transfer-coding.ts';

export interface FramingRejection {
  status: 400 | 501;
  code: 'duplicate_host' | 'bad_transfer_encoding' | 'unsupported_transfer_encoding';
  message: string;
}

/** undefined: the request may go on; otherwise the answer to give (and close the connection). */
export function checkRequestFraming(rawHeaders: readonly string[], httpVersion: string): FramingRejection | undefined {
  let hosts = 0;
  let contentLength = false;
  let te: string[] | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // By length first: most names are none of these.
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === 'host') hosts++;
        break;
      case 14:
        if (name.toLowerCase() === 'content-length') contentLength = true;
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') (te ??= []).push(rawHeaders[i + 1]!);
        break;
    }
  }
  if (hosts > 1) return { status: 400, code: 'duplicate_host', message: 'the request has more than one Host header (RFC 9112 §3.2); send exactly one' };
  if (te === undefined) return undefined;
  const check = checkTransferEncoding(te, { http10: httpVersion === '1.0', contentLength });
  return check.ok ? undefined : { status: check.status, code: check.code, message: check.message };
}
