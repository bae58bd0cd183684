/**
 * The OpenTelemetry SDK behind a component: a tracer provider with the configured sampler, a
 * BatchSpanProcessor and the OTLP/HTTP (JSON) exporter. The SDK modules are imported only here,
 * and only when tracing is on, so a component with tracing off never loads them.
 */
import { trace, type Tracer } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace';
import type { SamplerSetting, TraceSettings } from './trace-settings.ts';

export interface Tracing {
  readonly tracer: Tracer;
  readonly serviceName: string;
  /** The OTLP/HTTP traces URL spans go to. */
  readonly endpoint: string;
  /** Exports what is buffered (waiting at most `timeoutMs`, default 5 s), then stops; safe to call more than once. */
  shutdown(timeoutMs?: number): Promise<void>;
}

type SdkTrace = typeof import('@opentelemetry/sdk-trace');

function samplerOf(sdk: SdkTrace, s: SamplerSetting): Sampler {
  const root = s.root === 'always_on' ? new sdk.AlwaysOnSampler() : s.root === 'always_off' ? new sdk.AlwaysOffSampler() : new sdk.TraceIdRatioBasedSampler(s.ratio);
  return s.parentBased ? new sdk.ParentBasedSampler({ root }) : root;
}

/**
 * Starts the SDK for `settings` (from resolveTraceSettings) and registers it as the process'
 * global tracer provider, so code without a handle (the operator's work queue) finds it through
 * `@opentelemetry/api`.
 */
export async function startTracing(settings: Extract<TraceSettings, { enabled: true }>, o: { serviceVersion?: string } = {}): Promise<Tracing> {
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }, semconv] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const exporter = new OTLPTraceExporter({ url: settings.endpoint });
  const provider = new sdk.TracerProvider({
    sampler: samplerOf(sdk, settings.sampler),
    resource: resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: settings.serviceName,
      ...(o.serviceVersion ? { [semconv.ATTR_SERVICE_VERSION]: o.serviceVersion } : {}),
    }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.exportDelayMs })],
  });
  trace.setGlobalTracerProvider(provider);
  let stopped: Promise<void> | undefined;
  return {
    tracer: provider.getTracer('orrery'),
    serviceName: settings.serviceName,
    endpoint: settings.endpoint,
    // A collector that does not answer must not hold a component's exit: the wait is bounded.
    shutdown: (timeoutMs = 5_000) =>
      (stopped ??= Promise.race([provider.shutdown().catch(() => undefined), new Promise<void>((r) => setTimeout(r, timeoutMs).unref())]).finally(() => {
        trace.disable();
      })),
  };
}
