/**
 * Custom domains over TLS on a real `orrery-router` process (`--tls-port`), with real upstream
 * processes and a real TLS client (node:https, the test CA as its only trust anchor): the chain
 * verifies, SNI picks each host's certificate, an unknown or absent server name is refused, a
 * replaced certificate file is served on the next handshake without a restart while an open
 * connection keeps its own, plain HTTP for a redirecting host gets 308 to HTTPS, and a WebSocket
 * (wss) is proxied through the TLS port.
 */
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer, type ClientOptions } from 'ws';
import { Agent, request as httpsRequest } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainRoutesYaml } from '../testing/domain-routes-yaml.ts';
import { endpointsYaml, eventually, ProcessGroup } from '../testing/processes.ts';
import { writeRouterCertificate } from '../testing/router-certificate-files.ts';
import type { TestCa } from '../testing/test-certificates.ts';
import { startTlsRouter, tlsCertsFolder } from '../testing/tls-router.ts';

const g = new ProcessGroup();
let ca: TestCa;
let certsDir = '';
let plainPort = 0;
let tlsPort = 0;
let admin = '';
let routerOutput: () => string = () => '';
const serials: Record<string, string> = {};

const SHOP = 'shop.example.test';
const API = 'api.example.test';
const LIVE = 'live.example.test';
/** The WebSocket worker behind LIVE: echoes every message, prefixed, in this process. */
let liveServer: Server;

const routes = domainRoutesYaml([
  { name: 'shop', host: SHOP, redirectToHTTPS: true },
  { name: 'api', host: API },
  { name: 'live', host: LIVE },
]);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  serial: string | undefined;
  authorized: boolean | undefined;
}

function httpsGet(servername: string | undefined, path: string, o: { host?: string; agent?: Agent } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: tlsPort, path, servername, ca: ca.certPem, headers: { host: o.host ?? servername ?? 'x' }, agent: o.agent ?? false },
      (res) => {
        const socket = res.socket as TLSSocket;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, serial: socket.getPeerCertificate().serialNumber, authorized: socket.authorized }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function httpGet(host: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: plainPort, path, headers: { host }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A bare handshake: the error code it failed with, or 'ok'. */
function handshake(servername: string | undefined, extra: Record<string, unknown> = {}): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: tlsPort, ca: ca.certPem, ...(servername === undefined ? {} : { servername }), ...extra }, () => {
      s.end();
      resolve('ok');
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

beforeAll(async () => {
  ({ ca, certsDir } = tlsCertsFolder(g));
  const shop = ca.issue([SHOP]);
  const api = ca.issue([API]);
  serials[SHOP] = shop.serial;
  serials[API] = api.serial;
  writeRouterCertificate(certsDir, SHOP, shop);
  writeRouterCertificate(certsDir, API, api);
  writeRouterCertificate(certsDir, LIVE, ca.issue([LIVE]));
  liveServer = createHttpServer((_req, res) => res.writeHead(426).end());
  const wss = new WebSocketServer({ server: liveServer });
  wss.on('connection', (ws, req) => ws.on('message', (m) => ws.send(`${req.url} ${(m as Buffer).toString()}`)));
  await new Promise<void>((r) => liveServer.listen(0, '127.0.0.1', r));
  const [shopUp, apiUp] = await Promise.all([g.upstream('shop'), g.upstream('api')]);
  g.write('routes.yaml', routes);
  g.write('endpoints.yaml', endpointsYaml([
    { namespace: 'team', fn: 'shop', rev: 'shop-00001', address: shopUp.address },
    { namespace: 'team', fn: 'api', rev: 'api-00001', address: apiUp.address },
    { namespace: 'team', fn: 'live', rev: 'live-00001', address: `127.0.0.1:${(liveServer.address() as AddressInfo).port}` },
  ]));
  ({ plainPort, tlsPort, admin, output: routerOutput } = await startTlsRouter(g, certsDir));
}, 30_000);

afterAll(async () => {
  await g.stopAll();
  liveServer?.closeAllConnections();
  await new Promise((r) => liveServer?.close(r));
});

describe('router TLS for custom domains (real router, real TLS client)', () => {
  it('terminates TLS with a chain the client verifies, and routes by host to the Function holding it', async () => {
    const a = await httpsGet(SHOP, '/cart?item=1');
    expect(a.authorized).toBe(true);
    expect(a.serial).toBe(serials[SHOP]);
    expect(a.status).toBe(200);
    const echo = JSON.parse(a.body) as { name: string; path: string; headers: Record<string, string> };
    expect(echo.name).toBe('shop');
    // The whole request target goes upstream (no /{namespace}/{function} prefix to strip).
    expect(echo.path).toBe('/cart?item=1');
    expect(echo.headers['x-forwarded-proto']).toBe('https');
    expect(echo.headers.forwarded).toContain('proto=https');
  });

  it('picks the certificate by SNI for each host', async () => {
    const a = await httpsGet(API, '/v1');
    expect([a.serial, a.authorized, JSON.parse(a.body).name]).toEqual([serials[API], true, 'api']);
    // Server names compare as DNS names: any case.
    expect((await httpsGet('SHOP.Example.Test', '/')).serial).toBe(serials[SHOP]);
  });

  it('refuses the handshake for a server name it holds no certificate for, and for none at all', async () => {
    expect(await handshake('other.example.test')).toBe('ECONNRESET');
    expect(await handshake(undefined)).toMatch(/ALERT_HANDSHAKE_FAILURE/);
    expect(await handshake(SHOP, { maxVersion: 'TLSv1.1', minVersion: 'TLSv1' })).toMatch(/PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL|NO_PROTOCOLS/);
    const stats = (await (await fetch(`${admin}/v1/stats`)).json()) as { tls: { unknownName: number; noName: number; failed: number; hosts: number } };
    expect(stats.tls.unknownName).toBeGreaterThanOrEqual(1);
    expect(stats.tls.noName).toBeGreaterThanOrEqual(1);
    expect(stats.tls.hosts).toBe(3);
  });

  it('answers 421 on the TLS port for a Host that is not a custom domain (no path routing there)', async () => {
    const a = await httpsGet(SHOP, '/team/api/x', { host: 'localhost' });
    expect(a.status).toBe(421);
    expect(JSON.parse(a.body).code).toBe('misdirected_request');
  });

  it('redirects plain HTTP for a redirectToHTTPS host with 308, keeping path and query; other hosts stay on HTTP', async () => {
    const r = await httpGet(`${SHOP}:${plainPort}`, '/a/b?x=1&y=%20');
    expect(r.status).toBe(308);
    expect(r.headers.location).toBe(`https://${SHOP}:${tlsPort}/a/b?x=1&y=%20`);
    const api = await httpGet(API, '/plain');
    expect([api.status, JSON.parse(api.body).name, JSON.parse(api.body).headers['x-forwarded-proto']]).toEqual([200, 'api', 'http']);
    // Path routing on the plain port is unchanged.
    expect(JSON.parse((await httpGet('localhost', '/team/api/p')).body).name).toBe('api');
  });

  it('serves a replaced certificate file on the next handshake, without a restart; an open connection keeps its own', async () => {
    const keep = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await httpsGet(SHOP, '/', { agent: keep });
      expect(before.serial).toBe(serials[SHOP]);
      const renewed = ca.issue([SHOP]);
      expect(renewed.serial).not.toBe(serials[SHOP]);
      const t0 = Date.now();
      writeRouterCertificate(certsDir, SHOP, renewed);
      const fresh = await eventually(async () => {
        const a = await httpsGet(SHOP, '/');
        return a.serial === renewed.serial ? a : undefined;
      }, 'the renewed certificate on a new handshake', 10_000);
      console.log(`certificate reload seen by a new handshake after ${Date.now() - t0} ms`);
      expect([fresh.authorized, fresh.status]).toEqual([true, 200]);
      // The kept-alive connection from before the reload still works, with the certificate it was made with.
      const old = await httpsGet(SHOP, '/again', { agent: keep });
      expect([old.status, old.serial]).toEqual([200, serials[SHOP]]);
      // The other host did not change.
      expect((await httpsGet(API, '/')).serial).toBe(serials[API]);
    } finally {
      keep.destroy();
    }
  });

  it('serves TLS through node:http too (--ingress node)', { timeout: 30_000 }, async () => {
    const port = (await startTlsRouter(g, certsDir, ['--ingress', 'node'])).tlsPort;
    const saved = tlsPort;
    tlsPort = port;
    try {
      const a = await httpsGet(API, '/node');
      expect([a.status, a.authorized, JSON.parse(a.body).name, JSON.parse(a.body).headers['x-forwarded-proto']]).toEqual([200, true, 'api', 'https']);
      expect(await handshake('other.example.test')).toBe('ECONNRESET');
    } finally {
      tlsPort = saved;
    }
  });

  it('keeps the last good certificate when a file is replaced by one whose key does not match', async () => {
    const current = (await httpsGet(API, '/')).serial;
    const a = ca.issue([API]);
    const b = ca.issue([API]);
    writeRouterCertificate(certsDir, API, { certPem: a.certPem, keyPem: b.keyPem });
    await eventually(() => (/api\.example\.test\.pem: TLS refused the pair.*keeping the previous certificate/.test(routerOutput()) ? true : undefined), 'the reload warning', 10_000);
    expect((await httpsGet(API, '/')).serial).toBe(current);
    // Reloads are logged by host, serial and expiry: never a byte of a key.
    expect(routerOutput()).toContain(`${SHOP} (serial `);
    expect(routerOutput()).not.toMatch(/PRIVATE KEY|BEGIN |MII|MHc/);
  });
  it('proxies a WebSocket over TLS (wss) to the worker of the host, both ways', async () => {
    // ws hands unknown options to tls.connect: the SNI name the certificate is chosen by.
    const tlsOptions: ClientOptions & { servername: string } = { ca: ca.certPem, servername: LIVE, headers: { host: LIVE } };
    const ws = new WebSocket(`wss://127.0.0.1:${tlsPort}/chat?x=1`, tlsOptions);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const next = () => new Promise<string>((r) => ws.once('message', (m) => r((m as Buffer).toString())));
    let answer = next();
    ws.send('hello');
    expect(await answer).toBe('/chat?x=1 hello');
    answer = next();
    ws.send('again');
    expect(await answer).toBe('/chat?x=1 again');
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.close(1000);
    expect(await closed).toBe(1000);
  });
});
