/**
 * Issue 25, WebSocket through the router, with real processes: two `orrery-runtime` workers
 * (containerConcurrency 1, fixtures/ws-echo.mjs) behind a real `orrery-router` (the raw ingress,
 * and one `--ingress node`), a real `ws` client, and a stand-in autoscaler that records the
 * router's pokes and per-second stats. A handshake is a request like any other: it wakes a
 * revision from zero through the activator, holds exactly one in-flight slot while the socket is
 * open (router stats, the autoscaler's input, the worker's breaker), waits in the activator queue
 * while the only slot is taken, lands on the sticky key's HRW owner, and a worker's SIGTERM
 * reaches the client as close code 1001.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { hrwOwner } from '@orrery/router';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson } from '@orrery/router/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const WS_ECHO = new URL('../fixtures/ws-echo.mjs', import.meta.url).pathname;
const REV = 'echo-00001';

const g = new ProcessGroup();
let router: { url: string; admin: string };
let nodeRouter: { url: string; admin: string };
let autoscaler: Server;
const pokes: Array<{ revision: string }> = [];
const pushes: Array<{ revisions: Array<{ revision: string; inflight: number; queued: number; averageConcurrency: number }> }> = [];
const workers: RuntimeProcess[] = [];
/** Every client opened, so a failed test does not leave a worker's only slot taken for the next. */
const clients: WebSocket[] = [];
const address = (w: RuntimeProcess) => new URL(w.url).host;

/** Sticky functions on both workers, one per key source; `echo` starts with no worker at all. */
const STICKY = { byheader: '{source: header, name: X-Session}', byquery: '{source: queryparam, name: session}', bycookie: '{source: cookie, name: sid}' };

function endpoints(echo: RuntimeProcess[]): string {
  const list = echo.map((w) => ({ fn: 'echo', rev: REV, address: address(w) }));
  for (const fn of Object.keys(STICKY)) for (const w of workers) list.push({ fn, rev: `${fn}-00001`, address: address(w) });
  return endpointsYaml(list);
}

interface Client {
  ws: WebSocket;
  hello: { hello: string; revision: string; path: string };
  next(): Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a WebSocket and waits for the worker's greeting; rejects with the status and body of a refused handshake. */
function open(url: string, opts: { headers?: Record<string, string> } = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: opts.headers });
    clients.push(ws);
    const inbox: string[] = [];
    const waiting: Array<(m: string) => void> = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (d) => {
      const m = (d as Buffer).toString();
      const w = waiting.shift();
      if (w) w(m);
      else inbox.push(m);
    });
    const next = () => new Promise<string>((r) => (inbox.length > 0 ? r(inbox.shift()!) : waiting.push(r)));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(Object.assign(new Error(`handshake answered ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.once('error', reject);
    ws.once('open', () => void next().then((m) => resolve({ ws, hello: JSON.parse(m) as Client['hello'], next, closed })));
  });
}

const wsUrl = (base: string, path: string) => `${base.replace(/^http/, 'ws')}${path}`;
const routerStats = async (admin = router.admin) => (await (await fetch(`${admin}/v1/stats`)).json()) as RouterStatsJson;
const revisionStats = async (rev: string) => (await routerStats()).revisions.find((r) => r.revision === rev);
const workerStats = async (w: RuntimeProcess) => (await (await fetch(`${w.url}/v1/stats`)).json()) as { current: { inFlight: number; queued: number; webSockets: number } };

/** Bytes written on a raw socket, the whole answer read until the router closes. */
function rawExchange(base: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => s.write(bytes));
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('close', () => resolve(out));
    s.on('error', reject);
    s.setTimeout(5_000, () => s.destroy(new Error(`no close within 5 s; got ${out}`)));
  });
}

beforeAll(async () => {
  autoscaler = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as never;
      if (req.url === '/v1/autoscaler/poke') pokes.push(parsed);
      if (req.url === '/v1/autoscaler/stats') pushes.push(parsed);
      res.end('{}');
    });
  });
  await new Promise<void>((r) => autoscaler.listen(0, '127.0.0.1', r));
  const autoscalerUrl = `http://127.0.0.1:${(autoscaler.address() as AddressInfo).port}`;
  workers.push(
    ...(await Promise.all(
      ['a', 'b'].map((id) =>
        startRuntime(['--function', 'echo', '--revision', REV, '--source-file', WS_ECHO, '--container-concurrency', '1', '--timeout-seconds', '20', '--drain-timeout-seconds', '5', '--instance-id', id]),
      ),
    )),
  );
  const routes = g.write(
    'routes.yaml',
    [
      functionYaml({ name: 'echo', revisions: [REV], containerConcurrency: 1, timeoutSeconds: 20 }),
      ...Object.entries(STICKY).map(([name, sticky]) => functionYaml({ name, revisions: [`${name}-00001`], containerConcurrency: 1, sticky })),
    ].join(''),
  );
  const endpointsFile = g.write('endpoints.yaml', endpoints([]));
  [router, nodeRouter] = await Promise.all([
    g.router(['--routes-file', routes, '--endpoints-file', endpointsFile, '--autoscaler-url', autoscalerUrl]),
    g.router(['--routes-file', routes, '--endpoints-file', endpointsFile, '--ingress', 'node']),
  ]);
}, 60_000);

afterEach(() => {
  for (const ws of clients.splice(0)) ws.terminate();
});

afterAll(async () => {
  await Promise.all(workers.map((w) => stopRuntime(w)));
  await g.stopAll();
  await new Promise((r) => autoscaler?.close(r));
});

describe('WebSocket through the router (real router, real workers, containerConcurrency 1)', () => {
  it('wakes the revision from zero through the activator, echoes, and counts one in-flight request while open', { timeout: 30_000 }, async () => {
    // No worker yet: the handshake waits in the activator queue and the autoscaler is poked.
    const first = open(wsUrl(router.url, '/default/echo/chat'));
    await eventually(() => (pokes.some((p) => p.revision === REV) ? true : undefined), 'a poke for echo-00001');
    expect((await revisionStats(REV))?.queued).toBe(1);
    g.write('endpoints.yaml', endpoints([workers[0]!]));
    const a = await first;
    expect(a.hello).toEqual({ hello: address(workers[0]!), revision: REV, path: '/chat' });
    a.ws.send('ping');
    expect(await a.next()).toBe('ping');
    a.ws.send(Buffer.from([0, 1, 2, 255]), { binary: true });
    expect(await a.next()).toBe(Buffer.from([0, 1, 2, 255]).toString());

    // Open: one in flight for Admit, for the autoscaler's input and for the worker's breaker.
    const stats = await routerStats();
    expect(stats.revisions.find((r) => r.revision === REV)).toMatchObject({ inflight: 1, queued: 0 });
    expect(stats.endpoints.filter((e) => e.revision === `default/${REV}`)).toEqual([expect.objectContaining({ address: address(workers[0]!), inflight: 1 })]);
    expect((await workerStats(workers[0]!)).current).toEqual({ inFlight: 1, queued: 0, webSockets: 1 });
    const pushed = await eventually(() => pushes.flatMap((p) => p.revisions).find((r) => r.revision === REV && r.inflight === 1 && r.averageConcurrency > 0.9), 'a full second at concurrency 1 pushed to the autoscaler');
    expect(pushed.queued).toBe(0);

    // The only slot is taken: a second handshake waits in the router's queue, as an HTTP request would.
    let secondOpen = false;
    const second = open(wsUrl(router.url, '/default/echo/second')).then((c) => ((secondOpen = true), c));
    await eventually(async () => ((await revisionStats(REV))?.queued === 1 ? true : undefined), 'the second handshake queued');
    await new Promise((r) => setTimeout(r, 300));
    expect(secondOpen).toBe(false);
    a.ws.close(1000, 'done');
    expect(await a.closed).toEqual({ code: 1000, reason: 'done' });
    const b = await second;
    expect(b.hello.path).toBe('/second');
    b.ws.send('after');
    expect(await b.next()).toBe('after');
    b.ws.close();
    await b.closed;

    // Released exactly once: nothing in flight anywhere, and the autoscaler hears it.
    await eventually(async () => ((await revisionStats(REV))?.inflight === 0 ? true : undefined), 'router in flight back to 0');
    expect(await revisionStats(REV)).toMatchObject({ inflight: 0, queued: 0 });
    expect((await routerStats()).endpoints.find((e) => e.revision === `default/${REV}`)?.inflight).toBe(0);
    await eventually(async () => ((await workerStats(workers[0]!)).current.inFlight === 0 ? true : undefined), 'worker in flight back to 0');
    const since = pushes.length;
    const zero = await eventually(() => pushes.slice(since).flatMap((p) => p.revisions).find((r) => r.revision === REV && r.inflight === 0 && r.queued === 0), 'a push with nothing in flight');
    expect(zero.inflight).toBe(0);
    const metrics = await (await fetch(`${router.admin}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`orrery_router_requests_total\\{[^}]*revision="${REV}"[^}]*code="101"\\} 2`));
  });

  it('a sticky key read at the handshake (header, query parameter, cookie) lands on its HRW owner', { timeout: 30_000 }, async () => {
    const both = workers.map(address);
    const seen = new Set<string>();
    // Three keys owned by each worker (the workers' ports are random, so a fixed list of six
    // could all hash to one of them, one run in 32).
    const candidates = Array.from({ length: 64 }, (_, i) => `user-${i}`);
    const keys = [0, 1].flatMap((w) => candidates.filter((k) => hrwOwner(k, both) === w).slice(0, 3));
    expect(keys).toHaveLength(6);
    for (const key of keys) {
      const owner = both[hrwOwner(key, both)]!;
      seen.add(owner);
      for (const [fn, url, headers] of [
        ['byheader', `/default/byheader/s`, { 'x-session': key }],
        ['byquery', `/default/byquery/s?session=${key}`, {}],
        ['bycookie', `/default/bycookie/s`, { cookie: `theme=dark; sid=${key}` }],
      ] as const) {
        const c = await open(wsUrl(router.url, url), { headers });
        expect(c.hello.hello, `${fn} ${key}`).toBe(owner);
        c.ws.close();
        await c.closed;
      }
    }
    // The keys cover both workers, so the owner is really chosen per key.
    expect(seen.size).toBe(2);
    const fns = (await routerStats()).functions.filter((f) => f.function in STICKY);
    for (const f of fns) expect(f).toMatchObject({ stickyRequests: 6, stickyKeyMissing: 0 });
  });

  it('--ingress node proxies the same; a worker refusing the handshake is answered as a response; other upgrades get 400', { timeout: 30_000 }, async () => {
    const c = await open(wsUrl(nodeRouter.url, '/default/byheader/n'), { headers: { 'x-session': 'alice' } });
    c.ws.send('via node');
    expect(await c.next()).toBe('via node');
    c.ws.close();
    await c.closed;

    // The worker keeps its own routes: its 404 comes back as the answer to the handshake.
    const refused = await open(wsUrl(router.url, '/default/echo/healthz')).catch((e: { status: number; body: string }) => e);
    expect(refused).toMatchObject({ status: 404 });
    expect(JSON.parse((refused as { body: string }).body)).toMatchObject({ code: 'not_found' });

    const host = `Host: ${new URL(router.url).host}\r\n`;
    const h2c = await rawExchange(router.url, `GET /default/echo/x HTTP/1.1\r\n${host}Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n`);
    expect(h2c).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(h2c).toContain('"code":"upgrade_not_supported"');
    const post = await rawExchange(router.url, `POST /default/echo/x HTTP/1.1\r\n${host}Connection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: 0\r\n\r\n`);
    expect(post).toContain('"code":"bad_websocket_handshake"');
    expect((await revisionStats(REV))?.inflight).toBe(0);
  });

  it("the worker's SIGTERM reaches the client as close 1001, and the router releases the slot", { timeout: 30_000 }, async () => {
    const c = await open(wsUrl(router.url, '/default/echo/last'));
    expect(c.hello.hello).toBe(address(workers[0]!));
    expect((await revisionStats(REV))?.inflight).toBe(1);
    workers[0]!.kill('SIGTERM');
    expect(await c.closed).toEqual({ code: 1001, reason: 'worker draining' });
    expect(await workers[0]!.exited).toBe(0);
    expect(workers[0]!.stderr()).toContain('drained; exiting');
    await eventually(async () => ((await revisionStats(REV))?.inflight === 0 ? true : undefined), 'router in flight back to 0 after the drain');
  });
});
