/**
 * Between W3C headers and OpenTelemetry spans: the caller's `traceparent`/`tracestate` as the
 * parent context of a new span, and a span as the headers its callee gets.
 */
import { type Context, createTraceState, ROOT_CONTEXT, type Span, trace, type Tracer } from '@opentelemetry/api';
import { formatTraceparent, formatTracestate, isValidSpanId, isValidTraceId, parseTraceparent, parseTracestate } from './trace-context.ts';

export interface TraceHeaders {
  traceparent: string;
  /** Only when there is one to pass on. */
  tracestate: string | undefined;
}

/** The parent of a server span: the caller's span when its traceparent parses, else none (a new trace). */
export function remoteParent(traceparent: string | undefined, tracestate: string | undefined): Context {
  const p = parseTraceparent(traceparent);
  if (!p) return ROOT_CONTEXT;
  // A malformed tracestate is dropped, the traceparent still kept (W3C §3.3.1.1).
  const state = parseTracestate(tracestate);
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: p.traceId,
    spanId: p.spanId,
    traceFlags: p.flags & 1,
    isRemote: true,
    traceState: state && state.length > 0 ? createTraceState(formatTracestate(state)) : undefined,
  });
}

/**
 * What to send to the next hop so its span is a child of `span` (a non-recording span works too);
 * undefined for a span without ids (the API's no-op span).
 */
export function traceHeadersOf(span: Span): TraceHeaders | undefined {
  const c = span.spanContext();
  if (!isValidTraceId(c.traceId) || !isValidSpanId(c.spanId)) return undefined;
  const state = c.traceState?.serialize();
  return {
    traceparent: formatTraceparent({ traceId: c.traceId, spanId: c.spanId, flags: c.traceFlags }),
    tracestate: state ? state : undefined,
  };
}

/** The context whose active span is `span`: the parent argument for its children (no global context manager is used). */
export function contextWithSpan(span: Span): Context {
  return trace.setSpan(ROOT_CONTEXT, span);
}

/** The process' tracer (startTracing registers the provider); a no-op one while tracing is off. */
export function processTracer(): Tracer {
  return trace.getTracer('orrery');
}
