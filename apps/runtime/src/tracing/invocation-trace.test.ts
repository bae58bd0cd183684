import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@orrery/tracing';
import { inMemoryTracing } from '@orrery/tracing/testing';
import { InvocationTrace, NO_TRACE, type InvocationStart } from './invocation-trace.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const ROUTER_CLIENT = '00f067aa0ba902b7';
const INCOMING = `00-${TRACE}-${ROUTER_CLIENT}-01`;

const start = (o: Partial<InvocationStart> = {}): InvocationStart => ({
  method: 'POST',
  namespace: 'shop',
  function: 'cart',
  revision: 'cart-00001',
  keyspace: 'carts',
  traceparent: INCOMING,
  tracestate: 'vendor=1',
  ...o,
});

describe('InvocationTrace with tracing off', () => {
  it('hands the caller\'s context on unchanged: ctx.trace and every state call carry it', () => {
    const t = new InvocationTrace(undefined, start());
    expect(t.trace).toEqual({ traceparent: INCOMING, tracestate: 'vendor=1', traceId: TRACE, spanId: ROUTER_CLIENT, sampled: true });
    const call = t.state!.start('set');
    expect(call).toMatchObject({ traceparent: INCOMING, tracestate: 'vendor=1' });
    call.end(200);
    t.end(200);
  });

  it('without a (valid) traceparent there is nothing to pass on', () => {
    for (const traceparent of [undefined, 'garbage', `00-${'0'.repeat(32)}-${ROUTER_CLIENT}-01`]) {
      const t = new InvocationTrace(undefined, start({ traceparent }));
      expect(t.trace).toBe(NO_TRACE);
      expect(t.state).toBeUndefined();
    }
  });

  it('drops a malformed tracestate but keeps the traceparent', () => {
    const t = new InvocationTrace(undefined, start({ tracestate: 'BAD KEY=1' }));
    expect(t.trace.traceparent).toBe(INCOMING);
    expect(t.trace.tracestate).toBeUndefined();
  });
});

describe('InvocationTrace with tracing on', () => {
  it('a server span under the router\'s client span; state calls are client spans under it; ctx.trace names the server span', () => {
    const m = inMemoryTracing();
    const t = new InvocationTrace(m.tracer, start());
    const get = t.state!.start('get');
    get.end(404);
    const set = t.state!.start('set');
    set.end(200);
    t.end(200);
    const [getSpan, setSpan, server] = m.spans();
    expect(server!.kind).toBe(SpanKind.SERVER);
    expect(server!.name).toBe('POST shop/cart');
    expect(server!.spanContext().traceId).toBe(TRACE);
    expect(server!.parentSpanContext?.spanId).toBe(ROUTER_CLIENT);
    expect(server!.attributes).toEqual({ 'http.request.method': 'POST', 'orrery.namespace': 'shop', 'orrery.function': 'cart', 'orrery.revision': 'cart-00001', 'http.response.status_code': 200 });
    expect(t.trace).toEqual({ traceparent: `00-${TRACE}-${server!.spanContext().spanId}-01`, tracestate: 'vendor=1', traceId: TRACE, spanId: server!.spanContext().spanId, sampled: true });
    for (const [span, op, status] of [[getSpan, 'get', 404], [setSpan, 'set', 200]] as const) {
      expect(span!.kind).toBe(SpanKind.CLIENT);
      expect(span!.name).toBe(`state ${op}`);
      expect(span!.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
      expect(span!.attributes).toEqual({ 'orrery.state.op': op, 'orrery.state.keyspace': 'carts', 'http.response.status_code': status });
      expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    }
    expect(get.traceparent).toBe(`00-${TRACE}-${getSpan!.spanContext().spanId}-01`);
  });

  it('a failed state call and a 5xx invocation are errors', () => {
    const m = inMemoryTracing();
    const t = new InvocationTrace(m.tracer, start({ traceparent: undefined }));
    t.state!.start('cas').end(undefined);
    t.state!.start('set').end(409);
    t.end(500, 'handler_error');
    const [unanswered, conflict, server] = m.spans();
    expect(unanswered!.status.code).toBe(SpanStatusCode.ERROR);
    expect(conflict!.status.code).toBe(SpanStatusCode.ERROR);
    expect(server!.status.code).toBe(SpanStatusCode.ERROR);
    expect(server!.attributes['error.type']).toBe('handler_error');
    // No caller: a new trace, rooted at the worker.
    expect(server!.parentSpanContext).toBeUndefined();
  });
});
