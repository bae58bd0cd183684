/**
 * One pass over the client's raw header list: what routing needs (host, tag, sticky key) and
 * the header list to forward (hop-by-hop, Host, Expect and the forwarding headers —
 * X-Forwarded-*, Forwarded, X-Real-IP — removed; the caller adds its own, forwarded-headers.ts;
 * X-Orrery-Key-Moved, Orrery-Invocation-Id and Orrery-Router-Cannot-Resend removed too: only the
 * router says a key moved, names invocations and tells a draining worker to run a request,
 * data-plane.ts).
 * Avoids `req.headers`, which node builds lazily as a whole object.
 */
import { KEY_MOVED_HEADER, ROUTER_CANNOT_RESEND_HEADER } from '@orrery/sdk';
import { INVOCATION_ID_HEADER_LOWER } from '@orrery/spec';
import type { IncomingForwarding } from './forwarded-headers.ts';
import { connectionTokens, isHopByHop } from './hop-by-hop.ts';

export interface RequestHead extends IncomingForwarding {
  host: string | undefined;
  tag: string | undefined;
  sticky: string | undefined;
  forward: string[];
  contentLength: string | undefined;
  chunked: boolean;
  /** W3C trace context as the client sent it; forwarded unchanged unless tracing replaces it (tracing/request-trace.ts). */
  traceparent: string | undefined;
  tracestate: string | undefined;
}

export const TAG_HEADER = 'orrery-tag';

/** @param stickyHeader lower-case header name carrying the sticky key, if the function has one */
export function scanRequestHead(raw: readonly string[], stickyHeader: string | undefined): RequestHead {
  const head: RequestHead = {
    host: undefined,
    tag: undefined,
    sticky: undefined,
    forward: [],
    forwardedFor: undefined,
    forwardedProto: undefined,
    forwardedHost: undefined,
    forwarded: undefined,
    realIp: undefined,
    contentLength: undefined,
    chunked: false,
    traceparent: undefined,
    tracestate: undefined,
  };
  let connection: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    if (lower === stickyHeader && head.sticky === undefined) head.sticky = value;
    switch (lower) {
      case 'host':
        head.host ??= value;
        continue;
      case TAG_HEADER:
        head.tag ??= value;
        break; // forwarded: the worker may want to know which tag it serves
      case 'content-length':
        head.contentLength = value;
        break;
      case 'traceparent':
        head.traceparent ??= value;
        break;
      case 'tracestate':
        head.tracestate = head.tracestate === undefined ? value : `${head.tracestate},${value}`;
        break;
      case 'transfer-encoding':
        head.chunked = true;
        continue;
      case 'connection':
        connection = connection === undefined ? value : `${connection}, ${value}`;
        continue;
      case 'expect':
        continue; // node already answered 100-continue to the client
      case 'x-forwarded-for':
        head.forwardedFor = head.forwardedFor === undefined ? value : `${head.forwardedFor}, ${value}`;
        continue;
      case 'x-forwarded-proto':
        head.forwardedProto ??= value;
        continue;
      case 'x-forwarded-host':
        head.forwardedHost ??= value;
        continue;
      case 'forwarded':
        head.forwarded = head.forwarded === undefined ? value : `${head.forwarded}, ${value}`;
        continue;
      case 'x-real-ip':
        head.realIp ??= value;
        continue;
      case KEY_MOVED_HEADER:
        // The router's own (data-plane.ts, on a teleport): a client's would make a worker take
        // over a key that did not move.
        continue;
      case ROUTER_CANNOT_RESEND_HEADER:
        // The router's own (data-plane.ts): a client's would make a draining worker run requests
        // the router could have sent elsewhere, lengthening its drain.
        continue;
      case INVOCATION_ID_HEADER_LOWER:
        // The router's own (data-plane.ts, onWorkerLoss: replay): a client's could name another
        // invocation and be answered with its recorded ctx.state reads (docs/security.md).
        continue;
      default:
        if (isHopByHop(lower)) continue;
    }
    head.forward.push(name, value);
  }
  const extra = connectionTokens(connection);
  if (extra) {
    const f = head.forward;
    for (let i = f.length - 2; i >= 0; i -= 2) if (extra.has(f[i]!.toLowerCase())) f.splice(i, 2);
  }
  return head;
}

/** Host only (host-based routing needs it before the function, and so the sticky header, is known). */
export function findHost(raw: readonly string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') return raw[i + 1];
  return undefined;
}
