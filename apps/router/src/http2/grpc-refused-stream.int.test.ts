/**
 * A gRPC call whose worker refuses it unprocessed goes to another worker, through a real
 * `orrery-router`, a real gRPC client and worker (@grpc/grpc-js) and a node:http2 worker that
 * refuses: with RST_STREAM REFUSED_STREAM, with a GOAWAY that leaves the call's stream out (what
 * a draining runtime's GOAWAY does to a stream it had not taken yet), and with the runtime's
 * draining 503. RFC 9113 §8.7: a refused stream was not processed, so any method may go again;
 * the router holds the call's body (no length up front) to send it whole — a client-streaming
 * call still open too: what came so far, then the rest as the client sends it.
 */
import { createServer, constants, type ServerHttp2Stream } from 'node:http2';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { WORKER_DRAINING_HEADER } from '@orrery/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, jsonMethod } from '../testing/json-grpc-methods.ts';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson } from '../testing/processes.ts';

const g = new ProcessGroup();
let router: { url: string; admin: string; output: () => string };
let good: grpc.Server;
let goodAddress = '';

type Refusal = 'rst' | 'goaway' | 'draining-503';

/** A worker that takes each stream, waits for `release`, then refuses it as `how` says. */
interface Refuser {
  address: string;
  streams: number;
  /** The body bytes it had read when it refused (the router had sent them: it must hold them to resend). */
  bodyBytes: number;
  release(): void;
  close(): void;
}

async function refuser(how: Refusal): Promise<Refuser> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const state = { address: '', streams: 0, bodyBytes: 0, release };
  const server = how === 'goaway' ? goawayServer(state, released) : createServer();
  if (how !== 'goaway') {
    server.on('stream', (stream: ServerHttp2Stream) => {
      state.streams++;
      stream.on('data', (c: Buffer) => (state.bodyBytes += c.length));
      // The refused stream's own end: node reports the code it was closed with as an error.
      stream.on('error', () => {});
      void released.then(() => {
        if (how === 'rst') stream.close(constants.NGHTTP2_REFUSED_STREAM);
        else {
          stream.respond({ ':status': 503, 'content-type': 'application/json', [WORKER_DRAINING_HEADER]: '1' });
          stream.end('{"error":"worker is draining; send the request to another worker","code":"draining"}');
        }
      });
    });
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { ...state, get streams() { return state.streams; }, get bodyBytes() { return state.bodyBytes; }, close: () => server.close() };
}

const frame = (type: number, flags: number, streamId: number, payload: Buffer) => {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
};

/**
 * The GOAWAY a draining worker sends, from the wire: node's server always names the last stream
 * it received, so a stream it had not taken yet cannot be staged with it. This one reads the
 * frames, and on `released` answers GOAWAY(NO_ERROR, last stream 0) — the call's stream is beyond
 * it, so the router's HTTP/2 client closes it as REFUSED_STREAM.
 */
function goawayServer(state: { streams: number; bodyBytes: number }, released: Promise<void>): Server {
  const PREFACE = 24;
  return createTcpServer((socket: Socket) => {
    socket.on('error', () => {});
    // Our SETTINGS (empty), as any HTTP/2 server opens.
    socket.write(frame(4, 0, 0, Buffer.alloc(0)));
    let buf = Buffer.alloc(0);
    let prefaceRead = false;
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!prefaceRead) {
        if (buf.length < PREFACE) return;
        buf = buf.subarray(PREFACE);
        prefaceRead = true;
      }
      while (buf.length >= 9) {
        const length = buf.readUIntBE(0, 3);
        if (buf.length < 9 + length) return;
        const type = buf[3]!;
        const flags = buf[4]!;
        buf = buf.subarray(9 + length);
        // SETTINGS from the client: acknowledged.
        if (type === 4 && (flags & 1) === 0) socket.write(frame(4, 1, 0, Buffer.alloc(0)));
        if (type === 0) state.bodyBytes += length;
        if (type === 1) {
          state.streams++;
          const goaway = Buffer.alloc(8); // last stream 0, NO_ERROR
          void released.then(() => socket.write(frame(7, 0, 0, goaway)));
        }
      }
    });
  });
}

const stats = async () => (await (await fetch(`${router.admin}/v1/stats`)).json()) as RouterStatsJson;

async function serveBy(addresses: string[]): Promise<void> {
  g.write('endpoints.yaml', endpointsYaml(addresses.map((address) => ({ fn: 'echo', rev: 'echo-00001', address }))));
  await eventually(async () => ((await stats()).endpoints.length === addresses.length ? true : undefined), `${addresses.length} endpoints loaded`);
}

interface EchoClient extends grpc.Client {
  Say(m: Json, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: Json) => void): grpc.ClientUnaryCall;
  Collect(md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: Json) => void): grpc.ClientWritableStream<Json>;
}

/** The client calls the function by its /namespace/function prefix; the worker sees the path without it. */
const SAY = { Say: jsonMethod('/default/echo/echo.Echo/Say', false, false), Collect: jsonMethod('/default/echo/echo.Echo/Collect', true, false) };
const WORKER_SAY = { Say: jsonMethod('/echo.Echo/Say', false, false), Collect: jsonMethod('/echo.Echo/Collect', true, false) };

/** A worker refusing `how` as the function's only one, a client through the router, and both closed after `body`. */
async function withRefusingWorker(how: Refusal, body: (bad: Refuser, client: EchoClient) => Promise<void>): Promise<void> {
  const bad = await refuser(how);
  const Ctor = grpc.makeGenericClientConstructor(SAY, 'Echo');
  const client = new Ctor(new URL(router.url).host, grpc.credentials.createInsecure()) as unknown as EchoClient;
  try {
    // The refusing worker is the only one when the call arrives, so the call goes to it.
    await serveBy([bad.address]);
    await body(bad, client);
  } finally {
    client.close();
    bad.close();
  }
}

beforeAll(async () => {
  good = new grpc.Server();
  good.addService(WORKER_SAY, {
    Say: (call: grpc.ServerUnaryCall<Json, Json>, cb: grpc.sendUnaryData<Json>) => cb(null, { echo: call.request.text, by: 'good' }),
    // Client streaming: every message's text, in order, once the client ends.
    Collect: (call: grpc.ServerReadableStream<Json, Json>, cb: grpc.sendUnaryData<Json>) => {
      const texts: unknown[] = [];
      call.on('data', (m: Json) => texts.push(m.text));
      call.on('end', () => cb(null, { texts, by: 'good' }));
    },
  });
  const port = await new Promise<number>((resolve, reject) => good.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  goodAddress = `127.0.0.1:${port}`;
  const routes = g.write('routes.yaml', functionYaml({ name: 'echo', revisions: ['echo-00001'], timeoutSeconds: 20 }));
  router = await g.router(['--routes-file', routes, '--endpoints-file', g.write('endpoints.yaml', endpointsYaml([]))]);
}, 60_000);

afterAll(async () => {
  await g.stopAll();
  good?.forceShutdown();
});

describe('a gRPC call its worker refused unprocessed goes to another worker', () => {
  for (const how of ['rst', 'goaway', 'draining-503'] as const) {
    it(`refused with ${how}: answered by the other worker, sent once more`, { timeout: 30_000 }, () =>
      withRefusingWorker(how, async (bad, client) => {
        const before = await stats();
        const text = `hello ${how} ${'x'.repeat(2_000)}`;
        const answer = new Promise<{ err: grpc.ServiceError | null; res?: Json }>((resolve) => client.Say({ text }, new grpc.Metadata(), (err, res) => resolve({ err, res })));
        await eventually(() => (bad.streams === 1 && bad.bodyBytes > text.length ? true : undefined), 'the call and its body reached the refusing worker');
        await serveBy([bad.address, goodAddress]);
        bad.release();
        const r = await answer;
        expect(r.err).toBeNull();
        // The whole body went again: the good worker echoes every byte of it.
        expect(r.res).toEqual({ echo: text, by: 'good' });
        expect(bad.streams).toBe(1);
        const after = await stats();
        expect(after.upstreamRetries - before.upstreamRetries).toBe(1);
      }),
    );
  }

  for (const how of ['rst', 'goaway', 'draining-503'] as const) {
    it(`a client-streaming call refused with ${how} while its client is still sending: the other worker gets what came so far, then the rest`, { timeout: 30_000 }, () =>
      withRefusingWorker(how, async (bad, client) => {
        const before = await stats();
        const texts = [`one ${how} ${'a'.repeat(3_000)}`, `two ${'b'.repeat(5_000)}`, 'three'];
        let call!: grpc.ClientWritableStream<Json>;
        const answer = new Promise<{ err: grpc.ServiceError | null; res?: Json }>((resolve) => {
          call = client.Collect(new grpc.Metadata(), (err, res) => resolve({ err, res }));
        });
        call.write({ text: texts[0] });
        call.write({ text: texts[1] });
        await eventually(() => (bad.streams === 1 && bad.bodyBytes > texts[0]!.length + texts[1]!.length ? true : undefined), 'the first two messages reached the refusing worker');
        await serveBy([bad.address, goodAddress]);
        bad.release();
        // Refused and sent to the other worker with the call still open on the client's side.
        await eventually(async () => ((await stats()).upstreamRetries - before.upstreamRetries === 1 ? true : undefined), 'the router sent the call again');
        call.write({ text: texts[2] });
        call.end();
        const r = await answer;
        expect(r.err).toBeNull();
        expect(r.res).toEqual({ texts, by: 'good' });
        expect(bad.streams).toBe(1);
      }),
    );
  }

  it('a call whose body outgrew what the router holds (64 KiB) cannot go again: UNAVAILABLE, sent once', { timeout: 30_000 }, () =>
    withRefusingWorker('rst', async (bad, client) => {
      const before = await stats();
      const text = 'y'.repeat(70_000);
      const answer = new Promise<{ err: grpc.ServiceError | null }>((resolve) => client.Say({ text }, new grpc.Metadata(), (err) => resolve({ err })));
      await eventually(() => (bad.bodyBytes > text.length ? true : undefined), 'the whole body reached the refusing worker');
      await serveBy([bad.address, goodAddress]);
      bad.release();
      const r = await answer;
      expect(r.err?.code).toBe(grpc.status.UNAVAILABLE);
      expect((await stats()).upstreamRetries - before.upstreamRetries).toBe(0);
    }),
  );
});
