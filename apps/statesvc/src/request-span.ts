/**
 * statesvc's part of a distributed trace: a SERVER span per state or admin request, continuing
 * the caller's `traceparent` (the SDK's state call span). Attributes are the operation, the
 * verified scope (namespace, keyspace) and the outcome; keys, values and tokens never.
 */
import { remoteParent, SpanKind, SpanStatusCode, type Span, type Tracer } from '@orrery/tracing';
import type { Scope } from '@orrery/statestore';
import type { Op } from './metrics.ts';

export class RequestSpan {
  private readonly span: Span;

  constructor(tracer: Tracer, method: string, op: Op, traceparent: string | undefined, tracestate: string | undefined) {
    this.span = tracer.startSpan(`${method} state ${op}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'orrery.state.op': op } }, remoteParent(traceparent, tracestate));
  }

  /** The scope the request's token was verified for (so a refused token names nothing it claimed). */
  scope(s: Scope): void {
    this.span.setAttributes({ 'orrery.namespace': s.namespace, 'orrery.state.keyspace': s.keyspace });
  }

  /** `code` is the stable error code of a refused request. */
  end(status: number, code: string | undefined): void {
    this.span.setAttribute('http.response.status_code', status);
    if (code !== undefined) this.span.setAttribute('error.type', code);
    if (status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}
