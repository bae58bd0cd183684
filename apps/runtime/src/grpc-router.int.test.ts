/**
 * Issue 25, HTTP/2 and gRPC through the router, with real processes: `orrery-runtime` workers
 * serving fixtures/grpc-echo.mjs behind a real `orrery-router` (raw ingress), a real gRPC client
 * (@grpc/grpc-js, generic client: messages are JSON bytes, no .proto) and node:http2 for h2c.
 * A gRPC stream is a request like any other: routed, admitted, one in flight while open,
 * queued behind containerConcurrency 1, released exactly once, on its sticky key's owner.
 */
import { createServer, type Server } from 'node:http';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { hrwOwner } from '@orrery/router';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson } from '@orrery/router/testing';
import { type Json, jsonMethod } from '@orrery/router/testing/json-grpc-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const FIXTURE = new URL('../fixtures/grpc-echo.mjs', import.meta.url).pathname;

const g = new ProcessGroup();
let router: { url: string; admin: string };
let http1Only: Server;
const workers: Record<'a' | 'b' | 'wide', RuntimeProcess> = {} as never;
const address = (w: RuntimeProcess) => new URL(w.url).host;

/** A generic client for `echo.Echo` of function `fn`; the router routes by its /namespace/function prefix. */
function echoClient(fn: string) {
  const p = `/default/${fn}/echo.Echo`;
  const Ctor = grpc.makeGenericClientConstructor(
    {
      Say: jsonMethod(`${p}/Say`, false, false),
      Count: jsonMethod(`${p}/Count`, false, true),
      Join: jsonMethod(`${p}/Join`, true, false),
      Chat: jsonMethod(`${p}/Chat`, true, true),
      Missing: jsonMethod(`${p}/Missing`, false, false),
    },
    'Echo',
  );
  return new Ctor(new URL(router.url).host, grpc.credentials.createInsecure()) as unknown as EchoClient;
}

interface EchoClient extends grpc.Client {
  Say(m: Json, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: Json) => void): grpc.ClientUnaryCall;
  Missing(m: Json, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: Json) => void): grpc.ClientUnaryCall;
  Count(m: Json, md?: grpc.Metadata, opts?: grpc.CallOptions): grpc.ClientReadableStream<Json>;
  Join(md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: Json) => void): grpc.ClientWritableStream<Json>;
  Chat(md?: grpc.Metadata): grpc.ClientDuplexStream<Json, Json>;
}

interface UnaryResult {
  err: grpc.ServiceError | null;
  res?: Json;
  headers?: grpc.Metadata;
  status?: grpc.StatusObject;
}

function say(client: EchoClient, m: Json, md = new grpc.Metadata(), opts: grpc.CallOptions = {}, name: 'Say' | 'Missing' = 'Say'): Promise<UnaryResult> {
  return new Promise((resolve) => {
    const out: UnaryResult = { err: null };
    let pending = 2;
    const done = () => --pending === 0 && resolve(out);
    const call = client[name](m, md, opts, (err, res) => {
      out.err = err;
      out.res = res;
      done();
    });
    call.on('metadata', (h) => (out.headers = h));
    call.on('status', (s) => {
      out.status = s;
      done();
    });
  });
}

const routerStats = async () => (await (await fetch(`${router.admin}/v1/stats`)).json()) as RouterStatsJson;
const revisionStats = async (rev: string) => (await routerStats()).revisions.find((r) => r.revision === rev);
const workerStats = async (w: RuntimeProcess) => (await (await fetch(`${w.url}/v1/stats`)).json()) as { current: { inFlight: number; queued: number } };

beforeAll(async () => {
  // An HTTP/1.1-only worker (as the Python runtime is): it must not break h2 clients, and gRPC to it gets a clear status.
  http1Only = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(JSON.stringify({ http1: true, url: req.url })));
  });
  await new Promise<void>((r) => http1Only.listen(0, '127.0.0.1', r));
  const run = (id: string, cc: number) =>
    startRuntime(['--function', 'echo', '--revision', 'echo-00001', '--source-file', FIXTURE, '--container-concurrency', String(cc), '--timeout-seconds', '20', '--drain-timeout-seconds', '5', '--instance-id', id]);
  [workers.a, workers.b, workers.wide] = await Promise.all([run('a', 1), run('b', 1), run('wide', 0)]);
  const routes = g.write(
    'routes.yaml',
    [
      functionYaml({ name: 'echo', revisions: ['echo-00001'], containerConcurrency: 1, timeoutSeconds: 20 }),
      functionYaml({ name: 'solo', revisions: ['solo-00001'], containerConcurrency: 1, timeoutSeconds: 20 }),
      functionYaml({ name: 'wide', revisions: ['wide-00001'], containerConcurrency: 0, timeoutSeconds: 20 }),
      functionYaml({ name: 'keyed', revisions: ['keyed-00001'], containerConcurrency: 1, sticky: '{source: header, name: X-Session}' }),
      functionYaml({ name: 'py', revisions: ['py-00001'] }),
    ].join(''),
  );
  const endpoints = g.write(
    'endpoints.yaml',
    endpointsYaml([
      { fn: 'echo', rev: 'echo-00001', address: address(workers.a) },
      { fn: 'echo', rev: 'echo-00001', address: address(workers.b) },
      { fn: 'solo', rev: 'solo-00001', address: address(workers.a) },
      { fn: 'wide', rev: 'wide-00001', address: address(workers.wide) },
      { fn: 'keyed', rev: 'keyed-00001', address: address(workers.a) },
      { fn: 'keyed', rev: 'keyed-00001', address: address(workers.b) },
      { fn: 'py', rev: 'py-00001', address: `127.0.0.1:${(http1Only.address() as AddressInfo).port}` },
    ]),
  );
  router = await g.router(['--routes-file', routes, '--endpoints-file', endpoints]);
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(workers).map((w) => stopRuntime(w)));
  await g.stopAll();
  await new Promise((r) => http1Only?.close(r));
});

describe('gRPC through the router (@grpc/grpc-js client, real router and workers)', () => {
  it('unary: metadata in, initial metadata and trailers out, over h2c to the worker', { timeout: 20_000 }, async () => {
    const client = echoClient('echo');
    const md = new grpc.Metadata();
    md.set('x-custom', 'abc');
    const r = await say(client, { text: 'hello' }, md);
    expect(r.err).toBeNull();
    expect(r.res).toMatchObject({ echo: 'hello', custom: 'abc', forwardedHost: new URL(router.url).host });
    expect([address(workers.a), address(workers.b)]).toContain(r.res!.worker);
    expect(r.headers!.get('x-echo-header')).toEqual(['hi']);
    expect(r.status).toMatchObject({ code: grpc.status.OK });
    expect(r.status!.metadata.get('x-echo-trailer')).toEqual(['saw abc']);
    client.close();
  });

  it('server, client and bidi streaming carry every message in order', { timeout: 20_000 }, async () => {
    const client = echoClient('echo');
    const got: Json[] = [];
    const count = client.Count({ n: 50, text: 't' });
    await new Promise<void>((resolve, reject) => {
      count.on('data', (m: Json) => got.push(m));
      count.on('error', reject);
      count.on('end', resolve);
    });
    expect(got.map((m) => m.i)).toEqual([...Array(50).keys()]);

    const joined = await new Promise<Json>((resolve, reject) => {
      const w = client.Join(new grpc.Metadata(), (err, res) => (err ? reject(err) : resolve(res!)));
      for (const text of ['a', 'b', 'c', 'd']) w.write({ text });
      w.end();
    });
    expect(joined).toEqual({ joined: 'a b c d', count: 4 });

    // Bidi, one message at a time: each answer comes back before the next is sent.
    const chat = client.Chat();
    const replies: Json[] = [];
    const next = () => new Promise<Json>((resolve) => chat.once('data', resolve));
    for (const text of ['one', 'two', 'three']) {
      const answer = next();
      chat.write({ text });
      replies.push(await answer);
    }
    chat.end();
    await new Promise((r) => chat.on('status', r));
    expect(replies.map((m) => m.reply)).toEqual(['ONE', 'TWO', 'THREE']);
    client.close();
  });

  it('a status thrown by the function arrives with its code, message and trailers; unknown methods and functions get theirs', { timeout: 20_000 }, async () => {
    const client = echoClient('echo');
    const r = await say(client, { fail: { code: grpc.status.FAILED_PRECONDITION, message: 'not ready — later' } });
    expect(r.err).toMatchObject({ code: grpc.status.FAILED_PRECONDITION, details: 'not ready — later' });
    expect(r.status!.metadata.get('x-why')).toEqual(['asked']);

    const missing = await say(client, {}, undefined, undefined, 'Missing');
    expect(missing.err).toMatchObject({ code: grpc.status.UNIMPLEMENTED, details: expect.stringContaining('no gRPC method /echo.Echo/Missing') });
    client.close();

    const nobody = echoClient('nobody');
    const nf = await say(nobody, { text: 'x' });
    expect(nf.err).toMatchObject({ code: grpc.status.NOT_FOUND, details: expect.stringContaining('no function default/nobody') });
    nobody.close();
  });

  it('a deadline the call exceeds ends it with DEADLINE_EXCEEDED and frees the slot', { timeout: 20_000 }, async () => {
    const client = echoClient('solo');
    const t0 = Date.now();
    const r = await say(client, { text: 'slow', sleepMs: 5_000 }, undefined, { deadline: Date.now() + 400 });
    expect(r.err).toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    expect(Date.now() - t0).toBeLessThan(3_000);
    await eventually(async () => ((await revisionStats('solo-00001'))?.inflight === 0 ? true : undefined), 'router in flight back to 0');
    await eventually(async () => ((await workerStats(workers.a)).current.inFlight === 0 ? true : undefined), 'worker in flight back to 0');
    // The slot is usable again.
    expect((await say(client, { text: 'after' })).res).toMatchObject({ echo: 'after' });
    client.close();
  });

  it('containerConcurrency 1: a second call waits in the router queue until the open stream ends; in flight 1 → 0', { timeout: 30_000 }, async () => {
    const client = echoClient('solo');
    const stream = client.Count({ n: 1, text: 'hold', holdMs: 1_500 });
    const streamDone = new Promise<void>((resolve, reject) => {
      stream.on('data', () => undefined);
      stream.on('error', reject);
      stream.on('end', resolve);
    });
    await eventually(async () => ((await revisionStats('solo-00001'))?.inflight === 1 ? true : undefined), 'the stream in flight');
    let secondDone = false;
    const second = say(client, { text: 'second' }).then((r) => ((secondDone = true), r));
    await eventually(async () => ((await revisionStats('solo-00001'))?.queued === 1 ? true : undefined), 'the second call queued');
    expect(secondDone).toBe(false);
    await streamDone;
    const r = await second;
    expect(r.res).toMatchObject({ echo: 'second' });
    await eventually(async () => ((await revisionStats('solo-00001'))?.inflight === 0 ? true : undefined), 'in flight back to 0');
    expect(await revisionStats('solo-00001')).toMatchObject({ inflight: 0, queued: 0 });
    client.close();
  });

  it('a client cancel propagates to the worker and frees the slot', { timeout: 20_000 }, async () => {
    const client = echoClient('solo');
    const call = client.Say({ text: 'cancel me', sleepMs: 10_000 }, new grpc.Metadata(), {}, () => undefined);
    await eventually(async () => ((await workerStats(workers.a)).current.inFlight === 1 ? true : undefined), 'the call on the worker');
    call.cancel();
    await eventually(async () => ((await workerStats(workers.a)).current.inFlight === 0 ? true : undefined), 'the worker saw the cancel');
    await eventually(async () => ((await revisionStats('solo-00001'))?.inflight === 0 ? true : undefined), 'router in flight back to 0');
    client.close();
  });

  it('the sticky key header lands each call on its HRW owner', { timeout: 20_000 }, async () => {
    const client = echoClient('keyed');
    const both = [address(workers.a), address(workers.b)];
    const seen = new Set<string>();
    // Twelve keys: the chance that they all hash to one of two workers is 1 in 2048.
    for (const key of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'oscar']) {
      const md = new grpc.Metadata();
      md.set('x-session', key);
      const r = await say(client, { text: key }, md);
      const owner = both[hrwOwner(key, both)]!;
      expect(r.res!.worker, key).toBe(owner);
      seen.add(owner);
    }
    expect(seen.size).toBe(2);
    client.close();
  });

  it('a worker that speaks only HTTP/1.1 answers gRPC with UNIMPLEMENTED naming h2c', { timeout: 20_000 }, async () => {
    const client = echoClient('py');
    const r = await say(client, { text: 'x' });
    expect(r.err).toMatchObject({ code: grpc.status.UNIMPLEMENTED, details: expect.stringContaining('h2c') });
    client.close();
  });
});

describe('gRPC framing on the worker itself (h2c straight to the runtime)', () => {
  /** One call with `body` as the raw request body; the status and message from trailers (or a trailers-only head). */
  function rawCall(path: string, body: Buffer): Promise<{ status: string | undefined; message: string | undefined }> {
    return new Promise((resolve, reject) => {
      const session = h2connect(workers.wide.url);
      session.on('error', reject);
      const s = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
      let head: Record<string, unknown> = {};
      let trailers: Record<string, unknown> = {};
      s.on('response', (h) => (head = h));
      s.on('trailers', (t) => (trailers = t));
      s.on('data', () => undefined);
      s.on('close', () => {
        session.close();
        const src = trailers['grpc-status'] !== undefined ? trailers : head;
        resolve({ status: src['grpc-status'] as string | undefined, message: src['grpc-message'] as string | undefined });
      });
      s.end(body);
    });
  }
  const frame = (flag: number, payload: Buffer) => Buffer.concat([Buffer.from([flag]), Buffer.from([0, 0, 0, 0]).fill(0), payload]).fill(payload.length, 4, 5);

  it('a compressed message is UNIMPLEMENTED, a cut-off one INTERNAL, a good one OK', { timeout: 20_000 }, async () => {
    const payload = Buffer.from(JSON.stringify({ text: 'raw' }));
    expect(await rawCall('/echo.Echo/Say', frame(0, payload))).toEqual({ status: '0', message: undefined });
    expect(await rawCall('/echo.Echo/Say', frame(1, payload))).toMatchObject({ status: '12', message: expect.stringContaining('uncompressed') });
    expect(await rawCall('/echo.Echo/Say', frame(0, payload).subarray(0, 8))).toMatchObject({ status: '13' });
    expect(await rawCall('/echo.Echo/Nope', frame(0, payload))).toMatchObject({ status: '12', message: expect.stringContaining('no gRPC method /echo.Echo/Nope') });
  });
});

describe('h2c (prior knowledge) through the router', () => {
  let session: ClientHttp2Session;
  beforeAll(() => {
    session = h2connect(router.url);
  });
  afterAll(() => session?.close());

  function request(path: string, body: string | undefined): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const s = session.request({ ':method': body === undefined ? 'GET' : 'POST', ':path': path }, { endStream: body === undefined });
      let text = '';
      let headers: Record<string, unknown> = {};
      s.on('response', (h) => (headers = h));
      s.on('data', (d: Buffer) => (text += d.toString()));
      s.on('end', () => resolve({ status: Number(headers[':status']), body: text, headers }));
      s.on('error', reject);
      if (body !== undefined) s.end(body);
    });
  }

  it('200 concurrent streams on one session all get their own answer', { timeout: 30_000 }, async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => request(`/default/wide/item/${i}`, `body-${i}`)));
    answers.forEach((a, i) => {
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body)).toEqual({ path: `/item/${i}`, body: `body-${i}`, protocol: 'fetch' });
    });
    await eventually(async () => ((await revisionStats('wide-00001'))?.inflight === 0 ? true : undefined), 'in flight back to 0');
    // One connection for 200 streams: the raw ingress handed it to HTTP/2 once.
    const stats = (await routerStats()) as unknown as { ingress: { handovers: Record<string, number>; http2Sessions: number } };
    expect(stats.ingress.handovers.h2_preface).toBeGreaterThanOrEqual(1);
    expect(stats.ingress.http2Sessions).toBeGreaterThanOrEqual(1);
  });

  it('plain h2 requests reach an HTTP/1.1-only worker; the router answers its own errors as JSON', { timeout: 20_000 }, async () => {
    const a = await request('/default/py/hello', 'x');
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toEqual({ http1: true, url: '/hello' });
    const nf = await request('/default/nobody/x', undefined);
    expect(nf.status).toBe(404);
    expect(JSON.parse(nf.body)).toMatchObject({ code: 'function_not_found' });
  });
});
