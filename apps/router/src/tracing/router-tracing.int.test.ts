/**
 * Tracing through real `orrery-router` processes on both ingresses (docs/tracing.md): off, the
 * client's traceparent and tracestate reach the worker byte for byte and nothing is exported;
 * on, the worker gets the router's client span as its parent and the router exports a server and a
 * client span continuing the client's trace, with the sticky key only as its hash.
 */
import { startOtlpReceiver, OTLP_KIND, type OtlpReceiver } from '@orrery/tracing/testing';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, eventually, functionYaml, ProcessGroup } from '../testing/processes.ts';

const g = new ProcessGroup();
let upstream: string;
let receiver: OtlpReceiver;
let routes: string;
let endpoints: string;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER}-01`;
const STICKY_KEY = 'customer-8812';

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  upstream = (await g.upstream('w1')).address;
  routes = g.write('routes.yaml', functionYaml({ name: 'echo', revisions: ['echo-00001'], sticky: '{source: header, name: X-Customer}' }));
  endpoints = g.write('endpoints.yaml', endpointsYaml([{ fn: 'echo', rev: 'echo-00001', address: upstream }]));
}, 60_000);

afterAll(async () => {
  await g.stopAll();
  await receiver?.close();
});

type Echo = { rawHeaders: string[] };
const headerOf = (raw: string[], name: string): string[] => raw.filter((_, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === name);

async function send(url: string, traceparent: string): Promise<Echo> {
  return eventually(async () => {
    const res = await request(`${url}/default/echo/x`, { headers: { traceparent, tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE', 'x-customer': STICKY_KEY } });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return undefined;
    }
    return (await res.body.json()) as Echo;
  }, 'a proxied request');
}

describe.each(['raw', 'node'])('router tracing (--ingress %s)', (ingress) => {
  it('off: traceparent and tracestate pass through unchanged, nothing is exported', { timeout: 60_000 }, async () => {
    const before = receiver.requests;
    const r = await g.router(['--ingress', ingress, '--routes-file', routes, '--endpoints-file', endpoints]);
    const echo = await send(r.url, TRACEPARENT);
    expect(headerOf(echo.rawHeaders, 'traceparent')).toEqual([TRACEPARENT]);
    expect(headerOf(echo.rawHeaders, 'tracestate')).toEqual(['rojo=00f067aa0ba902b7,congo=t61rcWkgMzE']);
    await new Promise((res) => setTimeout(res, 300));
    expect(receiver.requests).toBe(before);
  });

  it('on: the worker gets the router\'s client span; server and client spans continue the caller\'s trace', { timeout: 60_000 }, async () => {
    const r = await g.router(['--ingress', ingress, '--routes-file', routes, '--endpoints-file', endpoints, '--otlp-endpoint', receiver.url], { OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: `router-${ingress}` });
    const echo = await send(r.url, TRACEPARENT);
    const forwarded = headerOf(echo.rawHeaders, 'traceparent');
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(forwarded[0]).not.toBe(TRACEPARENT);
    expect(headerOf(echo.rawHeaders, 'tracestate')).toEqual(['rojo=00f067aa0ba902b7,congo=t61rcWkgMzE']);
    const mine = () => receiver.spans.filter((s) => s.service === `router-${ingress}` && s.traceId === TRACE_ID);
    await eventually(() => (mine().length >= 2 ? true : undefined), 'two spans exported');
    const server = mine().find((s) => s.kind === OTLP_KIND.server)!;
    const client = mine().find((s) => s.kind === OTLP_KIND.client)!;
    expect(server.parentSpanId).toBe(CALLER);
    expect(client.parentSpanId).toBe(server.spanId);
    expect(forwarded[0]).toBe(`00-${TRACE_ID}-${client.spanId}-01`);
    expect(server.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/default/echo', 'orrery.function': 'echo', 'orrery.revision': 'echo-00001', 'http.response.status_code': 200, 'orrery.sticky.teleport': false });
    expect(server.attributes['orrery.sticky.key_hash']).toMatch(/^[0-9a-f]{16}$/);
    expect(receiver.bodies.join('\n')).not.toContain(STICKY_KEY);
  });

  it('on: a malformed traceparent starts a new trace instead of failing the request', { timeout: 60_000 }, async () => {
    const r = await g.router(['--ingress', ingress, '--routes-file', routes, '--endpoints-file', endpoints, '--otlp-endpoint', receiver.url], { OTEL_BSP_SCHEDULE_DELAY: '100' });
    const echo = await send(r.url, `00-${'0'.repeat(32)}-${CALLER}-01`);
    const forwarded = headerOf(echo.rawHeaders, 'traceparent');
    expect(forwarded).toHaveLength(1);
    const traceId = forwarded[0]!.split('-')[1]!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe('0'.repeat(32));
    await eventually(() => receiver.spans.find((s) => s.traceId === traceId && s.kind === OTLP_KIND.server), 'the new trace exported');
    expect(receiver.spans.find((s) => s.traceId === traceId && s.kind === OTLP_KIND.server)!.parentSpanId).toBe('');
  });
});
