/**
 * Issue 25, gRPC through the router on the real control plane: a worker pod (image
 * `orrery/runtime`, the code of examples/grpc-echo) and a router pod (image `orrery/router`,
 * routes and endpoints from a ConfigMap), each in its own network namespace run by the process
 * kubelet, reached from the host at their pod IPs. A real @grpc/grpc-js client calls through the
 * router: unary with metadata and trailers, a status thrown by the function, and a bidi stream
 * that is one in-flight request while open. The same flows with child processes, in more
 * detail: apps/runtime/src/grpc-router.int.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { adminKubeConfig, createNamespace, eventually, REPO_ROOT } from '@orrery/kube-testenv';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { ROUTES_CONFIGMAP, routerPodSpec } from './testing/kube-fixtures.ts';

type Pod = KubeObject & { status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> } };
type Json = Record<string, unknown>;

const FN = 'grpc-echo';
const REV = 'grpc-echo-00001';
/** The example's own code: what `orrery apply -f examples/grpc-echo` deploys. */
const example = parse(readFileSync(join(REPO_ROOT, 'examples', 'grpc-echo', 'function.yaml'), 'utf8')) as { spec: { template: { source: { inline: string } } } };

let client: KubeClient;
let ns = '';
let dispose: () => Promise<void> = async () => {};
let routerIP = '';

const ready = async (name: string): Promise<string | undefined> => {
  const p = await client.get<Pod>('v1', 'Pod', ns, name);
  return p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p.status.podIP : undefined;
};
const revision = async () =>
  ((await (await fetch(`http://${routerIP}:9090/v1/stats`)).json()) as { revisions: Array<{ revision: string; inflight: number }> }).revisions.find((r) => r.revision === REV);

const codec = {
  requestSerialize: (v: Json) => Buffer.from(JSON.stringify(v)),
  requestDeserialize: (b: Buffer) => JSON.parse(b.toString()) as Json,
  responseSerialize: (v: Json) => Buffer.from(JSON.stringify(v)),
  responseDeserialize: (b: Buffer) => JSON.parse(b.toString()) as Json,
};

interface EchoClient extends grpc.Client {
  Say(m: Json, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: Json) => void): grpc.ClientUnaryCall;
  Chat(): grpc.ClientDuplexStream<Json, Json>;
}

function echoClient(): EchoClient {
  const p = `/${ns}/${FN}/echo.Echo`;
  const Ctor = grpc.makeGenericClientConstructor(
    { Say: { path: `${p}/Say`, requestStream: false, responseStream: false, ...codec }, Chat: { path: `${p}/Chat`, requestStream: true, responseStream: true, ...codec } },
    'Echo',
  );
  return new Ctor(`${routerIP}:8080`, grpc.credentials.createInsecure()) as unknown as EchoClient;
}

function say(c: EchoClient, m: Json, md = new grpc.Metadata()): Promise<{ err: grpc.ServiceError | null; res?: Json; trailers?: grpc.Metadata }> {
  return new Promise((resolve) => {
    const out: { err: grpc.ServiceError | null; res?: Json; trailers?: grpc.Metadata } = { err: null };
    let pending = 2;
    const call = c.Say(m, md, (err, res) => {
      Object.assign(out, { err, res });
      if (--pending === 0) resolve(out);
    });
    call.on('status', (s) => {
      out.trailers = s.metadata;
      if (--pending === 0) resolve(out);
    });
  });
}

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: ns, dispose } = await createNamespace('router-grpc'));
  await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'grpc-echo-source', namespace: ns }, data: { 'handler.mjs': example.spec.template.source.inline } });
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'worker', namespace: ns, labels: { app: 'grpc-echo' } },
    spec: {
      terminationGracePeriodSeconds: 10,
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'runtime',
          image: 'orrery/runtime:test',
          args: ['--host=0.0.0.0', '--port=8080', `--namespace=${ns}`, `--function=${FN}`, `--revision=${REV}`, '--source-file=/etc/orrery-function/handler.mjs', '--container-concurrency=1', '--timeout-seconds=30', '--drain-timeout-seconds=5'],
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 1 },
          volumeMounts: [{ name: 'source', mountPath: '/etc/orrery-function', readOnly: true }],
        },
      ],
      volumes: [{ name: 'source', configMap: { name: 'grpc-echo-source' } }],
    },
  });
  const workerIP = await eventually('the worker pod Ready', () => ready('worker'), 60_000);
  const template = `{source: {inline: "see the worker"}, containerConcurrency: 1, timeoutSeconds: 30}`;
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ROUTES_CONFIGMAP, namespace: ns },
    data: {
      'routes.yaml': `apiVersion: orrery.dev/v1alpha1\nkind: Function\nmetadata: {name: ${FN}, namespace: ${ns}}\nspec: {template: ${template}}\n---\napiVersion: orrery.dev/v1alpha1\nkind: Revision\nmetadata: {name: ${REV}, namespace: ${ns}}\nspec: {function: ${FN}, template: ${template}}\n`,
      'endpoints.yaml': `- {namespace: ${ns}, function: ${FN}, revision: ${REV}, address: "${workerIP}:8080", ready: true}\n`,
    },
  });
  const spec = routerPodSpec({ labels: { app: 'router' } });
  spec.containers[0].args.push('--endpoints-file=/etc/orrery-routes/endpoints.yaml');
  await client.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'router', namespace: ns, labels: { app: 'router' } }, spec });
  routerIP = await eventually('the router pod Ready', () => ready('router'), 60_000);
}, 150_000);

afterAll(async () => {
  await dispose();
});

describe('gRPC through a router pod to a worker pod (real control plane, process kubelet)', () => {
  it('unary with metadata and trailers, a thrown status, and a bidi stream that holds one in-flight slot', { timeout: 120_000 }, async () => {
    const c = echoClient();
    const md = new grpc.Metadata();
    md.set('x-caller', 'kube-test');
    const ok = await eventually('a gRPC call through the router', async () => {
      const r = await say(c, { text: 'hi' }, md);
      return r.err ? undefined : r;
    }, 30_000);
    expect(ok.res).toEqual({ text: 'hi', from: 'kube-test' });
    expect(ok.trailers!.get('x-echoed-by')).toEqual([REV]);

    const bad = await say(c, {});
    expect(bad.err).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: 'send {"text": "..."}' });
    expect(bad.trailers!.get('x-hint')).toEqual(['text is required']);

    const chat = c.Chat();
    const next = () => new Promise<Json>((resolve) => chat.once('data', resolve));
    let answer = next();
    chat.write({ text: 'one' });
    expect(await answer).toEqual({ text: 'ONE' });
    expect(await revision()).toMatchObject({ inflight: 1 });
    answer = next();
    chat.write({ text: 'two' });
    expect(await answer).toEqual({ text: 'TWO' });
    chat.end();
    await new Promise((r) => chat.on('status', r));
    await eventually('the router released the slot', async () => (await revision())?.inflight === 0, 20_000);
    c.close();
  });
});
