import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@orrery/tracing';
import { inMemoryTracing } from '@orrery/tracing/testing';
import { fnv64Init, fnv64Update } from '../admit/fnv1a64.ts';
import { keyHashHex } from '../tables/key-hash-id.ts';
import { replaceTraceHeaders, RequestTrace, type RequestTraceStart } from './request-trace.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';

const start = (o: Partial<RequestTraceStart> = {}): RequestTraceStart => ({
  method: 'POST',
  namespace: 'shop',
  function: 'cart',
  revision: 'cart-00002',
  traceparent: `00-${TRACE}-${CALLER}-01`,
  tracestate: 'vendor=abc',
  keyHash: undefined,
  t0: performance.now(),
  ...o,
});

describe('replaceTraceHeaders', () => {
  it('drops every client traceparent/tracestate, whatever the case, and appends ours', () => {
    const forward = ['Traceparent', 'client', 'x-a', '1', 'tracestate', 'c=1', 'TRACESTATE', 'c=2'];
    replaceTraceHeaders(forward, 'ours', 'v=1');
    expect(forward).toEqual(['x-a', '1', 'traceparent', 'ours', 'tracestate', 'v=1']);
    replaceTraceHeaders(forward, 'next', undefined);
    expect(forward).toEqual(['x-a', '1', 'traceparent', 'next']);
  });
});

describe('RequestTrace', () => {
  it('a server span continuing the caller, a client span under it whose traceparent goes upstream', () => {
    const t = inMemoryTracing();
    const trace = new RequestTrace(t.tracer, start());
    const forward = ['traceparent', `00-${TRACE}-${CALLER}-01`, 'tracestate', 'vendor=abc'];
    trace.upstream('127.0.0.1:9001', 0, forward);
    trace.upstreamStatus(201);
    trace.endUpstream(undefined, undefined);
    trace.end(201, undefined);
    const [client, server] = t.spans();
    expect(server!.kind).toBe(SpanKind.SERVER);
    expect(server!.name).toBe('POST /shop/cart');
    expect(server!.spanContext().traceId).toBe(TRACE);
    expect(server!.parentSpanContext?.spanId).toBe(CALLER);
    expect(server!.attributes).toEqual({ 'http.request.method': 'POST', 'http.route': '/shop/cart', 'orrery.namespace': 'shop', 'orrery.function': 'cart', 'orrery.revision': 'cart-00002', 'http.response.status_code': 201 });
    expect(client!.kind).toBe(SpanKind.CLIENT);
    expect(client!.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
    expect(client!.attributes).toMatchObject({ 'server.address': '127.0.0.1:9001', 'http.response.status_code': 201, 'orrery.attempt': 0 });
    expect(forward).toEqual(['traceparent', `00-${TRACE}-${client!.spanContext().spanId}-01`, 'tracestate', 'vendor=abc']);
    expect(server!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a sticky request carries the key hash (the owner table id), never the key, and whether it teleported', () => {
    const t = inMemoryTracing();
    const key = 'user-4711@example.com';
    const h = fnv64Update(fnv64Init(), new TextEncoder().encode(key));
    const trace = new RequestTrace(t.tracer, start({ keyHash: h }));
    trace.teleport(true);
    trace.end(200, undefined);
    const [server] = t.spans();
    expect(server!.attributes['orrery.sticky.key_hash']).toBe(keyHashHex(h[0]!, h[1]!));
    expect(server!.attributes['orrery.sticky.teleport']).toBe(true);
    expect(JSON.stringify(server!.attributes)).not.toContain('4711');
  });

  it('a bad traceparent starts a new trace; the request still gets one', () => {
    const t = inMemoryTracing();
    const trace = new RequestTrace(t.tracer, start({ traceparent: 'garbage', tracestate: undefined }));
    const forward: string[] = ['traceparent', 'garbage'];
    trace.upstream('a:1', 0, forward);
    trace.endUpstream(undefined, undefined);
    trace.end(200, undefined);
    const [, server] = t.spans();
    expect(server!.parentSpanContext).toBeUndefined();
    expect(forward[1]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(forward[1]).toContain(server!.spanContext().traceId);
  });

  it('a retried attempt ends the last client span as retried; errors are stable codes; 5xx marks the server span', () => {
    const t = inMemoryTracing();
    const trace = new RequestTrace(t.tracer, start());
    const forward: string[] = [];
    trace.upstream('a:1', 0, forward);
    trace.endUpstream(undefined, 'ECONNREFUSED');
    trace.upstream('b:2', 1, forward);
    trace.end(502, 'upstream_unreachable');
    const [first, second, server] = t.spans();
    expect(first!.attributes).toMatchObject({ 'server.address': 'a:1', 'error.type': 'ECONNREFUSED' });
    expect(first!.status.code).toBe(SpanStatusCode.ERROR);
    expect(second!.attributes).toMatchObject({ 'server.address': 'b:2', 'orrery.attempt': 1, 'error.type': 'upstream_unreachable' });
    expect(server!.attributes).toMatchObject({ 'http.response.status_code': 502, 'error.type': 'upstream_unreachable' });
    expect(server!.status.code).toBe(SpanStatusCode.ERROR);
    expect(forward.filter((x) => x === 'traceparent')).toHaveLength(1);
  });

  it('a 4xx from the worker marks the client span, not the server span', () => {
    const t = inMemoryTracing();
    const trace = new RequestTrace(t.tracer, start());
    trace.upstream('a:1', 0, []);
    trace.upstreamStatus(404);
    trace.endUpstream(undefined, undefined);
    trace.end(404, undefined);
    const [client, server] = t.spans();
    expect(client!.status.code).toBe(SpanStatusCode.ERROR);
    expect(server!.status.code).toBe(SpanStatusCode.UNSET);
  });
});
