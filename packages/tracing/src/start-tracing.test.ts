import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, trace } from '@opentelemetry/api';
import { remoteParent, traceHeadersOf } from './span-context.ts';
import { startTracing, type Tracing } from './start-tracing.ts';
import { resolveTraceSettings } from './trace-settings.ts';
import { OTLP_KIND, startOtlpReceiver, type OtlpReceiver } from './testing/otlp-receiver.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';

async function until(ok: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('startTracing (the real SDK, exporting to an in-process OTLP/HTTP receiver)', () => {
  let receiver: OtlpReceiver | undefined;
  let tracing: Tracing | undefined;
  afterEach(async () => {
    await tracing?.shutdown();
    await receiver?.close();
    tracing = receiver = undefined;
  });

  const start = async (env: Record<string, string> = {}) => {
    receiver = await startOtlpReceiver();
    const s = resolveTraceSettings(receiver.url, { OTEL_BSP_SCHEDULE_DELAY: '50', ...env }, 'orrery-test');
    if (!s.ok || !s.value.enabled) throw new Error('expected tracing on');
    tracing = await startTracing(s.value);
    return tracing;
  };

  it('continues the caller\'s trace and exports the span with the service name; the next hop gets a child traceparent', async () => {
    const t = await start();
    const span = t.tracer.startSpan('GET /x', { kind: SpanKind.SERVER, attributes: { 'orrery.function': 'f' } }, remoteParent(`00-${TRACE}-${CALLER}-01`, 'rojo=1,congo=2'));
    const headers = traceHeadersOf(span)!;
    span.end();
    expect(headers.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(headers.traceparent).not.toContain(CALLER);
    expect(headers.tracestate).toBe('rojo=1,congo=2');
    await until(() => receiver!.spans.length === 1, 'one span exported');
    const got = receiver!.spans[0]!;
    expect(got).toMatchObject({ service: 'orrery-test', traceId: TRACE, parentSpanId: CALLER, name: 'GET /x', kind: OTLP_KIND.server, attributes: { 'orrery.function': 'f' } });
    expect(headers.traceparent).toBe(`00-${TRACE}-${got.spanId}-01`);
  });

  it('starts a new trace when the traceparent is malformed', async () => {
    const t = await start();
    const span = t.tracer.startSpan('s', {}, remoteParent(`00-${'0'.repeat(32)}-${CALLER}-01`, undefined));
    span.end();
    await until(() => receiver!.spans.length === 1, 'one span exported');
    expect(receiver!.spans[0]!.parentSpanId).toBe('');
    expect(receiver!.spans[0]!.traceId).not.toBe('0'.repeat(32));
  });

  it('parent-based sampling follows an unsampled caller: nothing is exported, the trace still propagates', async () => {
    const t = await start();
    const span = t.tracer.startSpan('s', {}, remoteParent(`00-${TRACE}-${CALLER}-00`, undefined));
    expect(span.isRecording()).toBe(false);
    expect(traceHeadersOf(span)!.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
    span.end();
    const sampled = t.tracer.startSpan('kept', {}, remoteParent(`00-${TRACE}-${CALLER}-01`, undefined));
    sampled.end();
    await until(() => receiver!.spans.length >= 1, 'the sampled span exported');
    await new Promise((r) => setTimeout(r, 150));
    expect(receiver!.spans.map((s) => s.name)).toEqual(['kept']);
  });

  it('always_off records nothing, even for a sampled caller', async () => {
    const t = await start({ OTEL_TRACES_SAMPLER: 'always_off' });
    const span = t.tracer.startSpan('s', {}, remoteParent(`00-${TRACE}-${CALLER}-01`, undefined));
    expect(span.isRecording()).toBe(false);
    span.end();
    await t.shutdown();
    expect(receiver!.spans).toEqual([]);
  });

  it('shutdown flushes what the batch still holds, registers globally until then', async () => {
    receiver = await startOtlpReceiver();
    const s = resolveTraceSettings(receiver.url, { OTEL_BSP_SCHEDULE_DELAY: '3600000' }, 'orrery-test');
    if (!s.ok || !s.value.enabled) throw new Error('expected tracing on');
    tracing = await startTracing(s.value);
    trace.getTracer('elsewhere').startSpan('via the global provider').end();
    expect(receiver.spans).toEqual([]);
    await tracing.shutdown();
    expect(receiver.spans.map((x) => x.name)).toEqual(['via the global provider']);
  });
});
