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
import { KubeClient } from './kube-client.ts';
import { type RoutedWorker, startRouterPod, startWorkerPod } from './testing/routed-worker-pods.ts';

type Json = Record<string, unknown>;

const FN = 'grpc-echo';
const REV = 'grpc-echo-00001';
/** The example's own code: what `orrery apply -f examples/grpc-echo` deploys. */
const example = parse(readFileSync(join(REPO_ROOT, 'examples', 'grpc-echo', 'function.yaml'), 'utf8')) as { spec: { template: { source: { inline: string } } } };

/** The example's code in a worker pod, as its function.yaml would run it. */
const WORKER: RoutedWorker = { fn: FN, rev: REV, handler: example.spec.template.source.inline, containerConcurrency: 1, timeoutSeconds: 30, drainTimeoutSeconds: 5, terminationGracePeriodSeconds: 10 };

let client: KubeClient;
let ns = '';
let dispose: () => Promise<void> = async () => {};
let routerIP = '';

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
  const workerIP = await startWorkerPod(client, ns, WORKER);
  routerIP = await startRouterPod(client, ns, WORKER, workerIP, { app: 'router' });
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
