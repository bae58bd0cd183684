export {
  parseTraceparent,
  formatTraceparent,
  parseTracestate,
  formatTracestate,
  isSampled,
  isValidTraceId,
  isValidSpanId,
  MAX_TRACESTATE_MEMBERS,
  type TraceParent,
  type TraceState,
} from './trace-context.ts';
export {
  resolveTraceSettings,
  resolveTraceEndpoint,
  resolveSampler,
  endpointForLog,
  TRACE_SAMPLERS,
  TRACE_ENV_PASSTHROUGH,
  DEFAULT_SAMPLER,
  DEFAULT_EXPORT_DELAY_MS,
  type TraceSettings,
  type SamplerSetting,
  type TraceSamplerName,
  type Setting,
  type Env,
} from './trace-settings.ts';
export { startTracing, type Tracing } from './start-tracing.ts';
export { remoteParent, traceHeadersOf, contextWithSpan, processTracer, type TraceHeaders } from './span-context.ts';
export { SpanKind, SpanStatusCode, type Span, type Tracer, type Attributes, type Context } from '@opentelemetry/api';
