/** statesvc's spans, from the real handler with the real SDK (in-memory exporter). */
import { afterEach, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { MemoryDriver } from '@orrery/statestore';
import { SpanKind, SpanStatusCode } from '@orrery/tracing';
import { inMemoryTracing } from '@orrery/tracing/testing';
import { parseKeyspaces } from './keyspaces.ts';
import { startStateServer, type RunningStateServer } from './server.ts';

const MASTER = Buffer.alloc(32, 9);
const TOKEN = deriveStateToken(MASTER, 'default', 'cart');
const keyspaces = parseKeyspaces('- {namespace: default, keyspace: cart}');
const headers = { authorization: `Bearer ${TOKEN}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' };
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SDK_SPAN = '00f067aa0ba902b7';

describe('statesvc request spans', () => {
  let srv: RunningStateServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it('one SERVER span per state call, continuing the caller, with op, scope and status — never the key, value or token', async () => {
    const t = inMemoryTracing();
    srv = await startStateServer({ driver: new MemoryDriver(), keyspaces: () => keyspaces, masterKeys: [MASTER], passThrough: false, log: () => {}, tracer: t.tracer });
    const traceparent = `00-${TRACE}-${SDK_SPAN}-01`;
    const put = await fetch(`${srv.url}/v1/state/secret-key-name`, { method: 'PUT', headers: { ...headers, traceparent, 'content-type': 'application/json' }, body: '{"card":"4111-1111"}' });
    expect(put.status).toBe(200);
    const get = await fetch(`${srv.url}/v1/state/secret-key-name`, { headers: { ...headers, traceparent } });
    expect(await get.json()).toEqual({ value: { card: '4111-1111' } });
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    const [set, read] = t.spans();
    expect(t.spans()).toHaveLength(2); // no span for the probe
    for (const [span, op, method] of [[set, 'set', 'PUT'], [read, 'get', 'GET']] as const) {
      expect(span!.kind).toBe(SpanKind.SERVER);
      expect(span!.name).toBe(`${method} state ${op}`);
      expect(span!.spanContext().traceId).toBe(TRACE);
      expect(span!.parentSpanContext?.spanId).toBe(SDK_SPAN);
      expect(span!.attributes).toEqual({ 'http.request.method': method, 'orrery.state.op': op, 'orrery.namespace': 'default', 'orrery.state.keyspace': 'cart', 'http.response.status_code': 200 });
    }
    const everything = JSON.stringify(t.spans().map((s) => [s.name, s.attributes, s.events]));
    for (const secret of [TOKEN, '4111-1111', 'secret-key-name']) expect(everything).not.toContain(secret);
  });

  it('a refused token names no scope; errors carry their stable code; a bad traceparent starts a new trace', async () => {
    const t = inMemoryTracing();
    srv = await startStateServer({ driver: new MemoryDriver(), keyspaces: () => keyspaces, masterKeys: [MASTER], passThrough: false, log: () => {}, tracer: t.tracer });
    const forged = await fetch(`${srv.url}/v1/state/k`, { headers: { ...headers, authorization: 'Bearer forged-token', traceparent: 'nonsense' } });
    expect(forged.status).toBe(403);
    const missing = await fetch(`${srv.url}/v1/state/nope`, { headers });
    expect(missing.status).toBe(404);
    const [refused, notFound] = t.spans();
    expect(refused!.parentSpanContext).toBeUndefined();
    expect(refused!.attributes).toEqual({ 'http.request.method': 'GET', 'orrery.state.op': 'get', 'http.response.status_code': 403, 'error.type': 'forbidden' });
    expect(refused!.status.code).toBe(SpanStatusCode.UNSET);
    expect(notFound!.attributes).toMatchObject({ 'orrery.state.keyspace': 'cart', 'http.response.status_code': 404, 'error.type': 'not_found' });
    expect(JSON.stringify(refused!.attributes)).not.toContain('forged-token');
  });

  it('no tracer, no spans: the handler works as before', async () => {
    srv = await startStateServer({ driver: new MemoryDriver(), keyspaces: () => keyspaces, masterKeys: [MASTER], passThrough: false, log: () => {} });
    const res = await fetch(`${srv.url}/v1/state/k`, { method: 'PUT', headers: { ...headers, traceparent: `00-${TRACE}-${SDK_SPAN}-01` }, body: '1' });
    expect(res.status).toBe(200);
  });
});
