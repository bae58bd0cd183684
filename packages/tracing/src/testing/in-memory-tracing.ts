/**
 * The real SDK with an in-memory exporter, for unit tests of code that makes spans: the same
 * sampler, ids and parenting as in production, the spans read back at once.
 */
import { AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Tracer } from '@opentelemetry/api';

export interface InMemoryTracing {
  tracer: Tracer;
  /** Finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  reset(): void;
}

export function inMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { tracer: provider.getTracer('test'), spans: () => exporter.getFinishedSpans(), reset: () => exporter.reset() };
}
