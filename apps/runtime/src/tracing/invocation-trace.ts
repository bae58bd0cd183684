/**
 * One handler invocation's place in a distributed trace. Tracing on: a SERVER span continuing
 * the router's `traceparent`, `ctx.trace` naming that span, and `ctx.state` calls as CLIENT
 * spans under it whose traceparent statesvc continues. Tracing off: nothing is recorded, but the
 * caller's trace context still flows — `ctx.trace` and the state calls carry it unchanged — so a
 * user's own tracing keeps its trace.
 */
import type { StateCallTrace, StateOp } from '@orrery/sdk';
import { contextWithSpan, parseTraceparent, parseTracestate, remoteParent, SpanKind, SpanStatusCode, traceHeadersOf, type Span, type Tracer } from '@orrery/tracing';

/** `ctx.trace`: the current span as W3C trace context (docs/tracing.md). */
export interface FunctionTrace {
  /** Send this (and `tracestate`) on your own outgoing calls to continue the trace; undefined when there is no trace. */
  readonly traceparent: string | undefined;
  readonly tracestate: string | undefined;
  readonly traceId: string | undefined;
  readonly spanId: string | undefined;
  readonly sampled: boolean;
}

export const NO_TRACE: FunctionTrace = Object.freeze({ traceparent: undefined, tracestate: undefined, traceId: undefined, spanId: undefined, sampled: false });

export interface InvocationStart {
  method: string;
  namespace: string;
  function: string;
  revision: string;
  /** The keyspace of `ctx.state`, when the function has one. */
  keyspace: string | undefined;
  traceparent: string | undefined;
  tracestate: string | undefined;
}

function traceOf(traceparent: string | undefined, tracestate: string | undefined): FunctionTrace {
  const p = parseTraceparent(traceparent);
  if (!p) return NO_TRACE;
  const state = parseTracestate(tracestate);
  return { traceparent: traceparent!.trim(), tracestate: state && state.length > 0 ? tracestate!.trim() : undefined, traceId: p.traceId, spanId: p.spanId, sampled: (p.flags & 1) === 1 };
}

const NO_END = (): void => {};

export class InvocationTrace {
  readonly trace: FunctionTrace;
  /** For `ctx.state.withTrace`; undefined when there is nothing to propagate. */
  readonly state: StateCallTrace | undefined;
  private readonly span: Span | undefined;

  constructor(tracer: Tracer | undefined, s: InvocationStart) {
    if (tracer === undefined) {
      // Propagation without recording: the caller's context, unchanged, wherever it goes.
      this.trace = traceOf(s.traceparent, s.tracestate);
      const { traceparent, tracestate } = this.trace;
      this.state = traceparent === undefined ? undefined : { start: () => ({ traceparent, tracestate, end: NO_END }) };
      return;
    }
    const span = tracer.startSpan(`${s.method} ${s.namespace}/${s.function}`, { kind: SpanKind.SERVER }, remoteParent(s.traceparent, s.tracestate));
    if (span.isRecording()) {
      span.setAttributes({ 'http.request.method': s.method, 'orrery.namespace': s.namespace, 'orrery.function': s.function, 'orrery.revision': s.revision });
    }
    this.span = span;
    const headers = traceHeadersOf(span);
    this.trace = headers ? traceOf(headers.traceparent, headers.tracestate) : NO_TRACE;
    const parent = contextWithSpan(span);
    this.state = {
      start: (op: StateOp) => {
        const call = tracer.startSpan(`state ${op}`, { kind: SpanKind.CLIENT, attributes: { 'orrery.state.op': op, ...(s.keyspace ? { 'orrery.state.keyspace': s.keyspace } : {}) } }, parent);
        const h = traceHeadersOf(call);
        return {
          traceparent: h?.traceparent,
          tracestate: h?.tracestate,
          end: (status: number | undefined) => {
            if (status !== undefined) call.setAttribute('http.response.status_code', status);
            // 404 on a read is an answer (null), not a failure.
            if (status === undefined || (status >= 400 && status !== 404)) call.setStatus({ code: SpanStatusCode.ERROR });
            call.end();
          },
        };
      },
    };
  }

  /** The invocation answered `status` (499: the client went away first); `error` is a stable code. */
  end(status: number, error?: string): void {
    const span = this.span;
    if (!span) return;
    span.setAttribute('http.response.status_code', status);
    if (error !== undefined) span.setAttribute('error.type', error);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}
