export { startOtlpReceiver, flattenExport, OTLP_KIND, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';
export { inMemoryTracing, type InMemoryTracing } from './in-memory-tracing.ts';
