/**
 * HTTP/2 and gRPC over the router's TLS port (ALPN `h2`), with a real `orrery-router` process,
 * a real gRPC worker (@grpc/grpc-js, h2c, in this process), a test upstream, and real clients
 * trusting only the test CA: a gRPC client calls unary and bidi-streaming methods by their plain
 * `/package.Service/Method` path on a custom domain, node:http2 gets a function's answer, an
 * HTTP/1.1 client still negotiates `http/1.1`, an unknown server name is still refused, a
 * redirectToHTTPS host still redirects plain HTTP, SIGTERM's drain sends GOAWAY on a TLS session,
 * and `--ingress node` (HTTP/1.1 only) does not offer `h2`.
 */
import { connect as h2connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainRoutesYaml } from '../testing/domain-routes-yaml.ts';
import { type Json, jsonMethod } from '../testing/json-grpc-methods.ts';
import { endpointsYaml, eventually, ProcessGroup, type RouterStatsJson } from '../testing/processes.ts';
import { writeRouterCertificate } from '../testing/router-certificate-files.ts';
import { startTlsRouter, type TlsCertsFolder, tlsCertsFolder, type TlsRouter } from '../testing/tls-router.ts';
import type { RouterTlsView } from './router-tls.ts';

const g = new ProcessGroup();
/** The test CA (the clients' only trust anchor) and the router's certs folder. */
let certs: TlsCertsFolder;
let router: TlsRouter;
let grpcWorker: grpc.Server;
let webAddress = '';

/** A gRPC Function's custom domain. */
const RPC = 'rpc.example.test';
/** An HTTP Function's custom domain, redirecting plain HTTP to HTTPS. */
const WEB = 'web.example.test';

const routes = domainRoutesYaml([
  { name: 'rpc', host: RPC },
  { name: 'web', host: WEB, redirectToHTTPS: true },
]);

/** `echo.Echo` by its plain gRPC paths: the domain names the Function, so there is no prefix. */
const ECHO = { Say: jsonMethod('/echo.Echo/Say', false, false), Chat: jsonMethod('/echo.Echo/Chat', true, true) };

interface EchoClient extends grpc.Client {
  Say(m: Json, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res?: Json) => void): grpc.ClientUnaryCall;
  Chat(): grpc.ClientDuplexStream<Json, Json>;
}

/** A gRPC client over TLS to the TLS port: SNI and :authority are `host`, the test CA the only trust anchor. */
function echoClient(host: string, port = router.tlsPort): EchoClient {
  const Ctor = grpc.makeGenericClientConstructor(ECHO, 'Echo');
  return new Ctor(`127.0.0.1:${port}`, grpc.credentials.createSsl(Buffer.from(certs.ca.certPem)), {
    'grpc.ssl_target_name_override': host,
    'grpc.default_authority': host,
  }) as unknown as EchoClient;
}

function say(client: EchoClient, m: Json, md = new grpc.Metadata()): Promise<{ err: grpc.ServiceError | null; res?: Json; status?: grpc.StatusObject }> {
  return new Promise((resolve) => {
    const out: { err: grpc.ServiceError | null; res?: Json; status?: grpc.StatusObject } = { err: null };
    let pending = 2;
    const done = () => --pending === 0 && resolve(out);
    const call = client.Say(m, md, (err, res) => {
      out.err = err;
      out.res = res;
      done();
    });
    call.on('status', (s) => {
      out.status = s;
      done();
    });
  });
}

function h2session(servername: string, port = router.tlsPort): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = h2connect(`https://127.0.0.1:${port}`, { ca: certs.ca.certPem, servername });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

function h2get(s: ClientHttp2Session, authority: string, path: string): Promise<{ headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = s.request({ ':method': 'GET', ':path': path, ':authority': authority });
    let headers: IncomingHttpHeaders = {};
    let body = '';
    req.setEncoding('utf8');
    req.on('response', (h) => (headers = h));
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve({ headers, body }));
    req.on('error', reject);
    req.end();
  });
}

/** A bare handshake offering `alpn`: the protocol chosen (false for none), or the error code it failed with. */
function handshake(servername: string, alpn: string[], port = router.tlsPort): Promise<string | false | null> {
  return new Promise((resolve) => {
    const s: TLSSocket = tlsConnect({ host: '127.0.0.1', port, ca: certs.ca.certPem, servername, ALPNProtocols: alpn }, () => {
      const chosen = s.alpnProtocol;
      s.end();
      resolve(chosen);
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

function httpsGet(servername: string, path: string, port = router.tlsPort): Promise<{ status: number; body: string; alpn: string | false | null }> {
  return new Promise((resolve, reject) => {
    // Offering http/1.1 alone, as `curl --http1.1` does (node's https passes it on to TLS; its types do not say so).
    const options: RequestOptions & { ALPNProtocols: string[] } = { host: '127.0.0.1', port, path, servername, ca: certs.ca.certPem, ALPNProtocols: ['http/1.1'], headers: { host: servername }, agent: false };
    const req = httpsRequest(options, (res) => {
      const alpn = (res.socket as TLSSocket).alpnProtocol;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, alpn }));
    });
    req.on('error', reject);
    req.end();
  });
}

const revisionStats = async (rev: string) => ((await (await fetch(`${router.admin}/v1/stats`)).json()) as RouterStatsJson).revisions.find((r) => r.revision === rev);
const tlsStats = async (adminUrl = router.admin) => ((await (await fetch(`${adminUrl}/v1/stats`)).json()) as { tls: RouterTlsView }).tls;

beforeAll(async () => {
  certs = tlsCertsFolder(g);
  for (const host of [RPC, WEB]) writeRouterCertificate(certs.certsDir, host, certs.ca.issue([host]));
  // The gRPC worker (h2c, as the runtime serves gRPC): it answers what reached it.
  grpcWorker = new grpc.Server();
  grpcWorker.addService(ECHO, {
    Say: (call: grpc.ServerUnaryCall<Json, Json>, cb: grpc.sendUnaryData<Json>) => {
      const md = call.metadata.getMap();
      call.sendMetadata(new grpc.Metadata());
      const trailer = new grpc.Metadata();
      trailer.set('x-echo-trailer', `saw ${String(md['x-custom'] ?? 'nothing')}`);
      cb(null, { echo: call.request.text, path: call.getPath(), proto: md['x-forwarded-proto'], forwardedHost: md['x-forwarded-host'], forwardedFor: md['x-forwarded-for'] }, trailer);
    },
    Chat: (call: grpc.ServerDuplexStream<Json, Json>) => {
      call.on('data', (m: Json) => call.write({ reply: String(m.text).toUpperCase() }));
      call.on('end', () => call.end());
    },
  });
  const grpcPort = await new Promise<number>((resolve, reject) => grpcWorker.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
  const web = await g.upstream('web');
  webAddress = web.address;
  g.write('routes.yaml', routes);
  g.write('endpoints.yaml', endpointsYaml([
    { namespace: 'team', fn: 'rpc', rev: 'rpc-00001', address: `127.0.0.1:${grpcPort}` },
    { namespace: 'team', fn: 'web', rev: 'web-00001', address: web.address },
  ]));
  router = await startTlsRouter(g, certs.certsDir);
}, 30_000);

afterAll(async () => {
  await g.stopAll();
  grpcWorker?.forceShutdown();
});

describe('HTTP/2 and gRPC on the TLS port (ALPN h2; real router, real clients)', () => {
  it('a gRPC client over TLS calls a unary method of the domain\'s Function by its plain path', { timeout: 20_000 }, async () => {
    const client = echoClient(RPC);
    try {
      const md = new grpc.Metadata();
      md.set('x-custom', 'abc');
      const r = await say(client, { text: 'hello' }, md);
      expect(r.err).toBeNull();
      // The whole path goes to the worker, as a domain's HTTP/1.1 request target does.
      expect(r.res).toEqual({ echo: 'hello', path: '/echo.Echo/Say', proto: 'https', forwardedHost: RPC, forwardedFor: '127.0.0.1' });
      expect(r.status!.metadata.get('x-echo-trailer')).toEqual(['saw abc']);
    } finally {
      client.close();
    }
    const stats = await tlsStats();
    expect(stats.http2).toBeGreaterThanOrEqual(1);
    // Served by the TLS port's own ingress, handed to HTTP/2 by the preface as h2c is.
    expect(stats.ingress.mode).toBe('raw');
    expect(stats.ingress.mode === 'raw' && stats.ingress.handovers.h2_preface).toBeGreaterThanOrEqual(1);
  });

  it('bidi streaming over TLS carries every message both ways, in order', { timeout: 20_000 }, async () => {
    const client = echoClient(RPC);
    try {
      const chat = client.Chat();
      const next = () =>
        new Promise<Json>((resolve, reject) => {
          chat.once('data', resolve);
          chat.once('error', reject);
        });
      const replies: Json[] = [];
      // One at a time: each answer comes back while the stream stays open.
      for (const text of ['one', 'two', 'three']) {
        const answer = next();
        chat.write({ text });
        replies.push(await answer);
      }
      // The open stream is one request in flight, as on the plain port; released when it ends.
      expect((await revisionStats('rpc-00001'))?.inflight).toBe(1);
      chat.end();
      const status = await new Promise<grpc.StatusObject>((r) => chat.on('status', r));
      expect(replies.map((m) => m.reply)).toEqual(['ONE', 'TWO', 'THREE']);
      expect(status.code).toBe(grpc.status.OK);
      await eventually(async () => ((await revisionStats('rpc-00001'))?.inflight === 0 ? true : undefined), 'in flight back to 0', 5_000);
    } finally {
      client.close();
    }
  });

  it('a gRPC call for another server name than the certificate\'s is refused at the handshake (UNAVAILABLE)', { timeout: 20_000 }, async () => {
    const client = echoClient('other.example.test');
    try {
      const r = await say(client, { text: 'x' });
      expect(r.err?.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      client.close();
    }
  });

  it('node:http2 over TLS negotiates h2 and gets the function\'s answer; a Host that is not a domain gets 421', { timeout: 20_000 }, async () => {
    const s = await h2session(WEB);
    try {
      expect(s.alpnProtocol).toBe('h2');
      const a = await h2get(s, WEB, '/cart?item=1');
      expect(a.headers[':status']).toBe(200);
      const echo = JSON.parse(a.body) as { name: string; path: string; headers: Record<string, string> };
      // Over TLS a redirectToHTTPS host is served, not redirected.
      expect([echo.name, echo.path, echo.headers['x-forwarded-proto'], echo.headers['x-forwarded-host']]).toEqual(['web', '/cart?item=1', 'https', WEB]);
      // Two streams, one connection: the second is routed as the first.
      const again = await h2get(s, WEB, '/again');
      expect(JSON.parse(again.body).path).toBe('/again');
      const other = await h2get(s, 'localhost', '/team/web/x');
      expect([other.headers[':status'], JSON.parse(other.body).code]).toEqual([421, 'misdirected_request']);
    } finally {
      s.close();
    }
  });

  it('an HTTP/1.1 client still negotiates http/1.1 (or none) and is served as before', async () => {
    const a = await httpsGet(WEB, '/h1');
    expect([a.status, a.alpn, JSON.parse(a.body).name, JSON.parse(a.body).path]).toEqual([200, 'http/1.1', 'web', '/h1']);
    // node:https offers no ALPN at all: HTTP/1.1, as before.
    const plain = await new Promise<{ status: number; alpn: string | false | null }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: router.tlsPort, path: '/none', servername: WEB, ca: certs.ca.certPem, headers: { host: WEB }, agent: false }, (res) => {
        res.resume();
        resolve({ status: res.statusCode!, alpn: (res.socket as TLSSocket).alpnProtocol });
      });
      req.on('error', reject);
      req.end();
    });
    expect(plain).toEqual({ status: 200, alpn: false });
    // The server prefers h2 when the client offers both; a client offering neither gets no ALPN and HTTP/1.1.
    expect(await handshake(WEB, ['h2', 'http/1.1'])).toBe('h2');
    expect(await handshake(WEB, ['http/1.1'])).toBe('http/1.1');
    expect(await handshake(WEB, [])).toBe(false);
  });

  it('still refuses an unknown server name at the handshake when h2 is offered', async () => {
    const before = (await tlsStats()).unknownName;
    expect(await handshake('other.example.test', ['h2'])).toBe('ECONNRESET');
    expect((await tlsStats()).unknownName).toBe(before + 1);
  });

  it('still redirects plain HTTP (HTTP/1.1 and h2c) for a redirectToHTTPS host with 308', async () => {
    const r = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: router.plainPort, path: '/a?x=1', headers: { host: WEB }, agent: false }, (res) => {
        res.resume();
        resolve({ status: res.statusCode!, location: res.headers.location });
      });
      req.on('error', reject);
      req.end();
    });
    expect(r).toEqual({ status: 308, location: `https://${WEB}:${router.tlsPort}/a?x=1` });
    const h2c = h2connect(`http://127.0.0.1:${router.plainPort}`);
    try {
      const a = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
        const req = h2c.request({ ':path': '/b', ':authority': WEB });
        req.on('response', resolve);
        req.on('error', reject);
        req.resume();
        req.end();
      });
      expect([a[':status'], a.location]).toEqual([308, `https://${WEB}:${router.tlsPort}/b`]);
    } finally {
      h2c.close();
    }
  });

  it('draining (SIGTERM with --drain) sends GOAWAY on a TLS HTTP/2 session; its open stream still finishes', { timeout: 30_000 }, async () => {
    const r = await startTlsRouter(g, certs.certsDir, ['--drain', '2s']);
    const port = r.tlsPort;
    const s = await h2session(WEB, port);
    try {
      expect(JSON.parse((await h2get(s, WEB, '/before')).body).path).toBe('/before');
      expect((await tlsStats(r.admin)).ingress).toMatchObject({ http2Sessions: 1 });
      const goaway = new Promise<number>((resolve) => s.once('goaway', (code: number) => resolve(code)));
      // A stream open across the GOAWAY: the worker answers after 500 ms.
      const slow = h2get(s, WEB, '/slow?delay=500');
      // Sent only once the worker holds it, so the GOAWAY's last stream id covers it.
      await eventually(async () => (((await (await fetch(`http://${webAddress}/__stats`)).json()) as { inflight: number }).inflight === 1 ? true : undefined), 'the slow request at the worker', 5_000);
      r.child.kill('SIGTERM');
      expect(await goaway).toBe(0);
      const answer = await slow;
      expect([answer.headers[':status'], JSON.parse(answer.body).path]).toEqual([200, '/slow?delay=500']);
    } finally {
      s.destroy();
    }
  });

  it('with --ingress node (HTTP/1.1 only) does not offer h2: HTTP/2 clients fall back, h2-only ones are refused', { timeout: 20_000 }, async () => {
    const port = (await startTlsRouter(g, certs.certsDir, ['--ingress', 'node'])).tlsPort;
    expect(await handshake(WEB, ['h2', 'http/1.1'], port)).toBe('http/1.1');
    expect(await handshake(WEB, ['h2'], port)).toMatch(/NO_APPLICATION_PROTOCOL/);
    const a = await httpsGet(WEB, '/node', port);
    expect([a.status, a.alpn, JSON.parse(a.body).name]).toEqual([200, 'http/1.1', 'web']);
  });
});
