/**
 * The "done" test of tracing (docs/tracing.md): the real platform — statesvc with a master key,
 * operator, router and a deploy worker, all as their own processes — exports to an in-process
 * OTLP/HTTP (JSON) receiver. One request with a known traceparent yields one connected trace
 * router → worker → statesvc; no token or state value appears in any export. Without an endpoint
 * nothing is exported and the handler still gets the caller's traceparent unchanged.
 */
import { startOtlpReceiver, OTLP_KIND, type OtlpReceiver, type ReceivedSpan } from '@orrery/tracing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Platform, revisionReady, startPlatform } from '../testing/platform.ts';
import { until } from '../testing/spawn-server.ts';

const VALUE_CANARY = 'state-value-canary-5d1c';
// One write and one read through ctx.state; answers what it saw of the trace and its own token
// (so the test can look for the token in the exports).
const SOURCE = `
import { readFileSync } from 'node:fs';
export default async (request, ctx) => {
  await ctx.state.set('visit', { note: '${VALUE_CANARY}' });
  const read = await ctx.state.get('visit');
  const token = JSON.parse(readFileSync(process.env.ORRERY_STATE_TOKEN_PATH, 'utf8')).token;
  return Response.json({ incoming: request.headers.get('traceparent'), trace: ctx.trace, value: read.value, token });
};`;

type Answer = { incoming: string | null; trace: { traceparent?: string; traceId?: string; spanId?: string; sampled: boolean }; value: { note: string }; token: string };

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

async function platformWith(env: Record<string, string>): Promise<Platform> {
  // The platform's processes inherit this environment (the operator hands OTEL_* on to its workers).
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const p = await startPlatform({ keyspaces: [{ namespace: 'default', keyspace: 'visits' }], operatorArgs: ['--pool-size', '0'] });
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'visits', namespace: 'default' },
      spec: { template: { source: { inline: SOURCE }, executor: 'deploy', timeoutSeconds: 30 }, state: { keyspace: 'visits' } },
    });
    await revisionReady(p, 'visits-00001', 90_000);
    await p.publishRoutes();
    return p;
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function call(p: Platform): Promise<Answer> {
  return until(
    async () => {
      const res = await fetch(`${p.routerUrl}/default/visits/`, { method: 'POST', headers: { traceparent: TRACEPARENT, tracestate: 'vendor=opaque' } });
      if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
      return (await res.json()) as Answer;
    },
    () => true,
    60_000,
    'a request through the router',
  );
}

describe('distributed tracing across the platform (real processes, in-process OTLP receiver)', () => {
  let receiver: OtlpReceiver;
  let p: Platform | undefined;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await p?.stop();
    await receiver?.close();
  }, 30_000);

  it('one request is one connected trace: router → worker → statesvc, with the right services and no secrets', { timeout: 240_000 }, async () => {
    p = await platformWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' });
    const answer = await call(p);
    expect(answer.value).toEqual({ note: VALUE_CANARY });

    const ofTrace = (): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === TRACE_ID);
    const find = (service: string, kind: number, name?: RegExp) => ofTrace().filter((s) => s.service === service && s.kind === kind && (!name || name.test(s.name)));
    // The router's server and client spans, the worker's server span and its two state calls, statesvc's two.
    await until(() => ofTrace().length, (n) => n >= 7, 30_000, 'seven spans of the trace exported');

    const routerServer = find('orrery-router', OTLP_KIND.server);
    expect(routerServer).toHaveLength(1);
    expect(routerServer[0]!.parentSpanId).toBe(CALLER_SPAN);
    expect(routerServer[0]!.attributes).toMatchObject({ 'http.request.method': 'POST', 'orrery.namespace': 'default', 'orrery.function': 'visits', 'orrery.revision': 'visits-00001', 'http.response.status_code': 200 });
    const routerClient = find('orrery-router', OTLP_KIND.client);
    expect(routerClient).toHaveLength(1);
    expect(routerClient[0]!.parentSpanId).toBe(routerServer[0]!.spanId);

    const worker = find('orrery-runtime', OTLP_KIND.server);
    expect(worker).toHaveLength(1);
    expect(worker[0]!.parentSpanId).toBe(routerClient[0]!.spanId);
    expect(worker[0]!.attributes).toMatchObject({ 'orrery.function': 'visits', 'orrery.revision': 'visits-00001', 'http.response.status_code': 200 });
    // What the handler saw: the router's client span on the wire, its own span in ctx.trace.
    expect(answer.incoming).toBe(`00-${TRACE_ID}-${routerClient[0]!.spanId}-01`);
    expect(answer.trace).toMatchObject({ traceparent: `00-${TRACE_ID}-${worker[0]!.spanId}-01`, traceId: TRACE_ID, spanId: worker[0]!.spanId, sampled: true });

    const sdk = find('orrery-runtime', OTLP_KIND.client, /^state /);
    expect(sdk.map((s) => s.name).sort()).toEqual(['state get', 'state set']);
    for (const s of sdk) expect(s.parentSpanId).toBe(worker[0]!.spanId);

    const statesvc = find('orrery-statesvc', OTLP_KIND.server);
    expect(statesvc).toHaveLength(2);
    for (const s of statesvc) {
      const parent = sdk.find((c) => c.spanId === s.parentSpanId);
      expect(parent, `statesvc span ${s.name} is a child of an SDK state call`).toBeDefined();
      expect(s.attributes['orrery.state.op']).toBe(parent!.attributes['orrery.state.op']);
      expect(s.attributes).toMatchObject({ 'orrery.namespace': 'default', 'orrery.state.keyspace': 'visits', 'http.response.status_code': 200 });
    }
    expect(ofTrace()).toHaveLength(7);

    // The operator traces its reconciles (traces of their own).
    await until(() => receiver.spans.filter((s) => s.service === 'orrery-operator' && s.name === 'reconcile Function' && s.attributes['orrery.name'] === 'visits'), (l) => l.length > 0, 30_000, 'a reconcile span of the Function');

    // Nothing secret in any export: not the state token, not the stored value.
    expect(answer.token.length).toBeGreaterThan(16);
    const exported = receiver.bodies.join('\n');
    expect(exported).not.toContain(answer.token);
    expect(exported).not.toContain(VALUE_CANARY);

    await p.stop();
    p = undefined;
  });

  it('without an endpoint nothing is exported, and the handler gets the caller\'s traceparent unchanged', { timeout: 240_000 }, async () => {
    const before = receiver.requests;
    p = await platformWith({});
    const answer = await call(p);
    expect(answer.incoming).toBe(TRACEPARENT);
    expect(answer.trace).toMatchObject({ traceparent: TRACEPARENT, traceId: TRACE_ID, spanId: CALLER_SPAN, sampled: true });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.requests).toBe(before);
  });
});
