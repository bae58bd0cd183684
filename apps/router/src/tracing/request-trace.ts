/**
 * The spans of one proxied request, made only when tracing is on (the data plane checks once):
 * a SERVER span continuing the client's `traceparent` (or starting a trace), and per upstream
 * attempt a CLIENT span whose traceparent replaces the client's in the forwarded headers, so the
 * worker's span is its child. Attributes name the function, revision and outcome; a sticky key
 * appears only as its FNV-1a-64 hash (the owner table's id), never as sent.
 */
import { contextWithSpan, remoteParent, SpanKind, SpanStatusCode, traceHeadersOf, type Span, type Tracer } from '@orrery/tracing';
import { keyHashHex } from '../tables/key-hash-id.ts';

export interface RequestTraceStart {
  method: string;
  namespace: string;
  function: string;
  revision: string;
  traceparent: string | undefined;
  tracestate: string | undefined;
  /** FNV-1a-64 of the sticky key as [hi, lo], when the request has one. */
  keyHash: Uint32Array | undefined;
  /** `performance.now()` at arrival. */
  t0: number;
}

/** Drops the client's traceparent/tracestate from a flat [name, value, …] list and adds ours. */
export function replaceTraceHeaders(forward: string[], traceparent: string, tracestate: string | undefined): void {
  for (let i = forward.length - 2; i >= 0; i -= 2) {
    const name = forward[i]!.toLowerCase();
    if (name === 'traceparent' || name === 'tracestate') forward.splice(i, 2);
  }
  forward.push('traceparent', traceparent);
  if (tracestate !== undefined) forward.push('tracestate', tracestate);
}

export class RequestTrace {
  private readonly server: Span;
  private client: Span | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly s: RequestTraceStart,
  ) {
    const route = `/${s.namespace}/${s.function}`;
    this.server = tracer.startSpan(
      `${s.method} ${route}`,
      { kind: SpanKind.SERVER, startTime: performance.timeOrigin + s.t0 },
      remoteParent(s.traceparent, s.tracestate),
    );
    if (this.server.isRecording()) {
      this.server.setAttributes({
        'http.request.method': s.method,
        'http.route': route,
        'orrery.namespace': s.namespace,
        'orrery.function': s.function,
        'orrery.revision': s.revision,
      });
      if (s.keyHash) this.server.setAttribute('orrery.sticky.key_hash', keyHashHex(s.keyHash[0]!, s.keyHash[1]!));
    }
  }

  /** Whether the sticky key moved to another endpoint than last time (recorded for sticky requests only). */
  teleport(moved: boolean): void {
    this.server.setAttribute('orrery.sticky.teleport', moved);
  }

  /** An upstream attempt to `address` begins: a client span, whose traceparent goes into `forward`. */
  upstream(address: string, attempt: number, forward: string[]): void {
    this.endUpstream(undefined, 'retried');
    this.client = this.tracer.startSpan(this.s.method, { kind: SpanKind.CLIENT, attributes: { 'http.request.method': this.s.method, 'server.address': address, 'orrery.attempt': attempt } }, contextWithSpan(this.server));
    const headers = traceHeadersOf(this.client);
    if (headers) replaceTraceHeaders(forward, headers.traceparent, headers.tracestate);
  }

  /** The worker answered with `status` (the response head). */
  upstreamStatus(status: number): void {
    const c = this.client;
    if (!c) return;
    c.setAttribute('http.response.status_code', status);
    if (status >= 400) c.setStatus({ code: SpanStatusCode.ERROR });
  }

  /** The upstream attempt ended: after its body (error undefined) or failed (`error` is a stable code, never a message with data in it). */
  endUpstream(status: number | undefined, error: string | undefined): void {
    const c = this.client;
    if (!c) return;
    this.client = undefined;
    if (status !== undefined) c.setAttribute('http.response.status_code', status);
    if (error !== undefined) {
      c.setAttribute('error.type', error);
      c.setStatus({ code: SpanStatusCode.ERROR });
    }
    c.end();
  }

  /** The exchange finished with `status` (499: the client went away); `code` when the router answered itself. */
  end(status: number, code: string | undefined): void {
    this.endUpstream(undefined, this.client ? (code ?? 'unfinished') : undefined);
    const s = this.server;
    s.setAttribute('http.response.status_code', status);
    if (code !== undefined) s.setAttribute('error.type', code);
    // Server spans are errors on 5xx only: a 4xx is the client's mistake (semantic conventions).
    if (status >= 500) s.setStatus({ code: SpanStatusCode.ERROR });
    s.end();
  }
}
