/**
 * A real `orrery-router` process in front of real upstream processes (fixtures/upstream.mjs).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { Readable } from 'node:stream';
import { Pool, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type FunctionStatsJson, type RouterStatsJson } from './testing/processes.ts';
import { twoPartPost } from './testing/two-part-post.ts';

interface Echo {
  name: string;
  seq: number;
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

const g = new ProcessGroup();
let router: { url: string; admin: string; output: () => string };
let pool: Pool;
let autoscaler: Server;
const pokes: Array<Record<string, unknown>> = [];
const statsPushes: Array<Record<string, unknown>> = [];
let up: Record<string, string> = {};
let endpoints: Array<{ fn: string; rev: string; address: string }> = [];
let endpointsPath = '';
/** A loopback port with nothing listening (connection refused). */
let deadAddress = '';
/** The only worker of `stale`, gone before the first request (a worker that just died). */
let staleAddress = '';
/**
 * A worker that dies with every request on it after reading it: its socket closes with nothing
 * unread, so its kernel sends a FIN, as for a worker SIGKILLed mid-request (the request may have
 * run). A worker killed before it read the request resets instead: killed-worker-retry.int.test.ts.
 */
let dying: NetServer;
let dyingAddress = '';
let dyingRequests = 0;
/** A draining worker (503 with the draining header) and a function answering its own 503. */
let drainingWorker: Server;
let own503: Server;
let drainingRequests = 0;
/** A second draining worker, the only one of its revision (a rollout stopping the old Revision). */
let lastDraining: Server;
let lastDrainingRequests = 0;
let lastDrainingAddress = '';
/** A worker that holds the first request it gets until released, then refuses it draining (refusing every later one at once). */
let heldDraining: Server;
let heldDrainingAddress = '';
/** A draining worker that is sent POST bodies (its own function, so no other test has quarantined it). */
let bodyDraining: Server;
let bodyDrainingRequests = 0;
/** A draining worker as the runtime is: it runs what the router says it cannot send elsewhere (orrery-router-cannot-resend), refuses the rest. */
let streamDraining: Server;
/** The only worker of its revision, refusing draining as soon as a POST's body begins (the rest still on its way). */
let partialDraining: Server;
let partialDrainingRequests = 0;
let releaseHeld: (() => void) | undefined;
let heldArrived = false;
/** The routes file as written at the start; a test rewrites it to move traffic. */
let routesYaml = '';

async function call(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<{ status: number; json: Echo & { code?: string }; headers: Record<string, string | string[] | undefined> }> {
  const res = await pool.request({ path, method, headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : {}, headers: res.headers };
}

async function stats(admin = router.admin): Promise<RouterStatsJson> {
  const res = await request(`${admin}/v1/stats`);
  return (await res.body.json()) as RouterStatsJson;
}

function setEndpoints(list: typeof endpoints): void {
  endpoints = list;
  g.write('endpoints.yaml', endpointsYaml(list));
}

async function waitEndpoints(admin: string, expected: number): Promise<void> {
  await eventually(async () => ((await stats(admin)).endpoints.length === expected ? true : undefined), `${expected} endpoints loaded`);
}

async function freeDeadAddress(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return `127.0.0.1:${port}`;
}

beforeAll(async () => {
  autoscaler = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (req.url === '/v1/autoscaler/poke') pokes.push(parsed);
      if (req.url === '/v1/autoscaler/stats') statsPushes.push(parsed);
      res.end('{}');
    });
  });
  await new Promise<void>((r) => autoscaler.listen(0, '127.0.0.1', r));
  const [blue, green, ex1, ex2, s1, s2, live] = await Promise.all([
    g.upstream('blue'),
    g.upstream('green'),
    g.upstream('ex1', { exclusive: true }),
    g.upstream('ex2', { exclusive: true }),
    g.upstream('s1'),
    g.upstream('s2'),
    g.upstream('live'),
  ]);
  up = { blue: blue.address, green: green.address, ex1: ex1.address, ex2: ex2.address, s1: s1.address, s2: s2.address, live: live.address };
  deadAddress = await freeDeadAddress();
  staleAddress = await freeDeadAddress();
  dying = createNetServer((socket) => {
    socket.once('data', () => {
      dyingRequests++;
      socket.destroy();
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => dying.listen(0, '127.0.0.1', r));
  dyingAddress = `127.0.0.1:${(dying.address() as AddressInfo).port}`;
  drainingWorker = createServer((req, res) => {
    drainingRequests++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json', 'orrery-worker-draining': '1', connection: 'close' }).end('{"code":"draining"}');
  });
  lastDraining = createServer((req, res) => {
    lastDrainingRequests++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json', 'orrery-worker-draining': '1' }).end('{"code":"draining"}');
  });
  heldDraining = createServer((req, res) => {
    req.resume();
    const refuse = () => res.writeHead(503, { 'content-type': 'application/json', 'orrery-worker-draining': '1' }).end('{"code":"draining"}');
    if (heldArrived) return refuse();
    heldArrived = true;
    releaseHeld = refuse;
  });
  bodyDraining = createServer((req, res) => {
    bodyDrainingRequests++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json', 'orrery-worker-draining': '1' }).end('{"code":"draining"}');
  });
  streamDraining = createServer((req, res) => {
    const said = req.headers['orrery-router-cannot-resend'];
    if (said !== '1') {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json', 'orrery-worker-draining': '1', connection: 'close' }).end('{"code":"draining"}');
      return;
    }
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ name: 'drainer', bytes, chunked: req.headers['transfer-encoding'] === 'chunked' })));
  });
  partialDraining = createServer((req, res) => {
    partialDrainingRequests++;
    req.once('data', () => res.writeHead(503, { 'content-type': 'application/json', 'orrery-worker-draining': '1', connection: 'close' }).end('{"code":"draining"}'));
  });
  own503 = createServer((req, res) => {
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":"mine"}');
  });
  await Promise.all([drainingWorker, own503, lastDraining, heldDraining, bodyDraining, streamDraining, partialDraining].map((srv) => new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))));
  lastDrainingAddress = `127.0.0.1:${(lastDraining.address() as AddressInfo).port}`;
  heldDrainingAddress = `127.0.0.1:${(heldDraining.address() as AddressInfo).port}`;
  const drainingAddress = `127.0.0.1:${(drainingWorker.address() as AddressInfo).port}`;
  const own503Address = `127.0.0.1:${(own503.address() as AddressInfo).port}`;
  const routes = [
    functionYaml({ name: 'web', revisions: ['web-00001', 'web-00002'], traffic: '[{revisionName: web-00001, percent: 50, tag: blue}, {revisionName: web-00002, percent: 50, tag: green}]' }),
    functionYaml({ name: 'single', revisions: ['single-00001'], containerConcurrency: 1 }),
    functionYaml({ name: 'cold', revisions: ['cold-00001'], containerConcurrency: 1 }),
    functionYaml({ name: 'full', revisions: ['full-00001'] }),
    functionYaml({ name: 'slow', revisions: ['slow-00001'], timeoutSeconds: 1 }),
    functionYaml({ name: 'sticky', revisions: ['sticky-00001'], sticky: '{source: header, name: X-Session}' }),
    functionYaml({ name: 'flaky', revisions: ['flaky-00001'] }),
    functionYaml({ name: 'stale', revisions: ['stale-00001'], timeoutSeconds: 20 }),
    functionYaml({ name: 'hosted', namespace: 'team', revisions: ['hosted-00001'] }),
    functionYaml({ name: 'dying', revisions: ['dying-00001'] }),
    functionYaml({ name: 'dying-only', revisions: ['dying-only-00001'] }),
    functionYaml({ name: 'drainy', revisions: ['drainy-00001'] }),
    functionYaml({ name: 'drainy-body', revisions: ['drainy-body-00001'] }),
    functionYaml({ name: 'drained', revisions: ['drained-00001'], timeoutSeconds: 20 }),
    functionYaml({ name: 'drainy-stream', revisions: ['drainy-stream-00001'], timeoutSeconds: 20 }),
    functionYaml({ name: 'drained-partial', revisions: ['drained-partial-00001'], timeoutSeconds: 20 }),
    functionYaml({ name: 'shifting', revisions: ['shifting-00001', 'shifting-00002'], timeoutSeconds: 20, traffic: '[{revisionName: shifting-00001, percent: 100}]' }),
    functionYaml({ name: 'unavailable', revisions: ['unavailable-00001'] }),
    functionYaml({ name: 'phoenix', revisions: ['phoenix-00001'], timeoutSeconds: 20 }),
    functionYaml({ name: 'rollout', revisions: ['rollout-00001'], timeoutSeconds: 20 }),
    functionYaml({ name: 'moving', revisions: ['moving-00001', 'moving-00002'], timeoutSeconds: 20, traffic: '[{revisionName: moving-00001, percent: 100}]' }),
  ].join('');
  routesYaml = routes;
  const routesPath = g.write('routes.yaml', routes);
  setEndpoints([
    { fn: 'web', rev: 'web-00001', address: up.blue! },
    { fn: 'web', rev: 'web-00002', address: up.green! },
    { fn: 'single', rev: 'single-00001', address: up.ex1! },
    { fn: 'single', rev: 'single-00001', address: up.ex2! },
    { fn: 'sticky', rev: 'sticky-00001', address: up.s1! },
    { fn: 'sticky', rev: 'sticky-00001', address: up.s2! },
    { fn: 'flaky', rev: 'flaky-00001', address: deadAddress },
    { fn: 'flaky', rev: 'flaky-00001', address: up.live! },
    { fn: 'stale', rev: 'stale-00001', address: staleAddress },
    { fn: 'dying', rev: 'dying-00001', address: dyingAddress },
    { fn: 'dying', rev: 'dying-00001', address: up.live! },
    { fn: 'dying-only', rev: 'dying-only-00001', address: dyingAddress },
    { fn: 'drainy', rev: 'drainy-00001', address: drainingAddress },
    { fn: 'drainy', rev: 'drainy-00001', address: up.live! },
    { fn: 'drainy-body', rev: 'drainy-body-00001', address: `127.0.0.1:${(bodyDraining.address() as AddressInfo).port}` },
    { fn: 'drainy-body', rev: 'drainy-body-00001', address: up.live! },
    { fn: 'drained', rev: 'drained-00001', address: lastDrainingAddress },
    { fn: 'drainy-stream', rev: 'drainy-stream-00001', address: `127.0.0.1:${(streamDraining.address() as AddressInfo).port}` },
    { fn: 'drained-partial', rev: 'drained-partial-00001', address: `127.0.0.1:${(partialDraining.address() as AddressInfo).port}` },
    { fn: 'shifting', rev: 'shifting-00001', address: heldDrainingAddress },
    { fn: 'shifting', rev: 'shifting-00002', address: up.live! },
    { fn: 'unavailable', rev: 'unavailable-00001', address: own503Address },
    { fn: 'moving', rev: 'moving-00002', address: up.live! },
  ]);
  endpointsPath = g.write('endpoints.yaml', endpointsYaml(endpoints));
  g.write('endpoints.yaml', endpointsYaml(endpoints) + endpointsYaml([{ fn: 'hosted', rev: 'hosted-00001', address: up.live!, namespace: 'team' }]));
  router = await g.router([
    '--routes-file', routesPath,
    '--endpoints-file', endpointsPath,
    '--queue-depth', '3',
    '--max-body-bytes', '1000000',
    '--domain', 'fn.test',
    '--autoscaler-url', `http://127.0.0.1:${(autoscaler.address() as AddressInfo).port}`,
  ]);
  pool = new Pool(router.url, { connections: 16 });
  await waitEndpoints(router.admin, 24);
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await g.stopAll();
  await new Promise((r) => autoscaler?.close(r));
  await new Promise((r) => dying?.close(r));
  releaseHeld?.();
  await Promise.all([drainingWorker, own503, lastDraining, heldDraining, bodyDraining, streamDraining, partialDraining].map((srv) => new Promise((r) => srv?.close(r))));
});

describe('orrery-router (real process)', () => {
  it('splits blue/green 50/50 within ±5 % and sends tagged requests to their revision every time', { timeout: 60_000 }, async () => {
    const counts: Record<string, number> = {};
    const results = await Promise.all(Array.from({ length: 1000 }, () => call('/default/web/hello?x=1')));
    for (const r of results) {
      expect(r.status).toBe(200);
      counts[r.json.name] = (counts[r.json.name] ?? 0) + 1;
    }
    expect(Math.abs(counts.blue! / 1000 - 0.5)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(counts.green! / 1000 - 0.5)).toBeLessThanOrEqual(0.05);
    for (const tag of ['blue', 'green']) {
      const tagged = await Promise.all(Array.from({ length: 100 }, () => call('/default/web/', { 'orrery-tag': tag })));
      expect(tagged.every((r) => r.status === 200 && r.json.name === tag)).toBe(true);
    }
    const unknown = await call('/default/web/', { 'orrery-tag': 'purple' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('unknown_tag');
    const missing = await call('/default/nope/');
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('function_not_found');
  });

  it('proxies paths, bodies and headers: hop-by-hop stripped, X-Forwarded-* set; host-based routing works', { timeout: 30_000 }, async () => {
    // node:http, because undici refuses a Connection header that names other headers.
    const r = await new Promise<{ status: number; json: Echo; headers: Record<string, unknown> }>((resolve, reject) => {
      const req = httpRequest(`${router.url}/default/web/a/b?c=d`, { method: 'POST', headers: { 'orrery-tag': 'blue', 'x-custom': 'yes', connection: 'keep-alive, x-secret', 'x-secret': 'no', 'x-forwarded-for': '10.9.9.9' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) as Echo, headers: res.headers }));
      });
      req.on('error', reject);
      req.end('payload-123');
    });
    expect(r.status).toBe(200);
    expect(r.json.path).toBe('/a/b?c=d');
    expect(r.json.method).toBe('POST');
    expect(r.json.body).toBe('payload-123');
    expect(r.json.headers['x-custom']).toBe('yes');
    expect(r.json.headers['x-secret']).toBeUndefined();
    // The router is the edge (no --trusted-proxies): the client's X-Forwarded-For is replaced, not appended to.
    expect(r.json.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(r.json.headers['x-real-ip']).toBe('127.0.0.1');
    expect(r.json.headers['x-forwarded-proto']).toBe('http');
    expect(r.json.headers['x-forwarded-host']).toBe(new URL(router.url).host);
    expect(r.headers['x-upstream']).toBe('blue');
    const hosted = await call('/x', { host: 'hosted.team.fn.test' });
    expect(hosted.status).toBe(200);
    expect(hosted.json.name).toBe('live');
    expect(hosted.json.path).toBe('/x');
  });

  it('streams large bodies both ways and answers 413 beyond --max-body-bytes', { timeout: 60_000 }, async () => {
    const big = 'x'.repeat(500_000);
    // A chunked (length-less) 500 kB request, echoed back inside a ~500 kB JSON response.
    const ok = await pool.request({ path: '/default/web/', method: 'POST', headers: { 'orrery-tag': 'blue' }, body: Readable.from([Buffer.from(big.slice(0, 250_000)), Buffer.from(big.slice(250_000))]) });
    const echoed = (await ok.body.json()) as Echo;
    expect(ok.statusCode).toBe(200);
    expect(echoed.body.length).toBe(500_000);
    expect(echoed.headers['transfer-encoding']).toBe('chunked');
    const sized = await call('/default/web/', { 'orrery-tag': 'blue', 'content-type': 'text/plain' }, 'POST', 'y'.repeat(2_000_000));
    expect(sized.status).toBe(413);
    expect(sized.json.code).toBe('body_too_large');
    const chunked = await pool.request({ path: '/default/web/', method: 'POST', headers: { 'orrery-tag': 'blue' }, body: Readable.from(Array.from({ length: 20 }, () => Buffer.alloc(100_000, 122))) });
    expect(chunked.statusCode).toBe(413);
    expect(((await chunked.body.json()) as { code: string }).code).toBe('body_too_large');
  });

  it('never overlaps two requests on one upstream with requestsPerPod 1 (5 parallel clients)', { timeout: 60_000 }, async () => {
    const clients = Array.from({ length: 5 }, async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await call('/default/single/?delay=5')).status);
      return statuses;
    });
    const all = (await Promise.all(clients)).flat();
    expect(all).toHaveLength(100);
    expect(all.every((s) => s === 200)).toBe(true);
    for (const a of [up.ex1!, up.ex2!]) {
      const s = (await (await request(`http://${a}/__stats`)).body.json()) as { overlaps: number; served: number };
      expect(s.overlaps).toBe(0);
      expect(s.served).toBeGreaterThan(0);
    }
    const st = await stats();
    // 5 clients on 2 slots: some had to wait in the queue.
    expect(st.admitResults.all_busy).toBeGreaterThan(0);
  });

  it('activator: waits while no endpoint exists, pokes the autoscaler, releases in arrival order when one appears', { timeout: 60_000 }, async () => {
    const waiting: Array<Promise<Awaited<ReturnType<typeof call>>>> = [];
    for (let i = 1; i <= 3; i++) {
      waiting.push(call(`/default/cold/?id=${i}`));
      await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'cold-00001')?.queued === i ? true : undefined), `${i} queued`);
    }
    await eventually(() => (pokes.some((p) => p.revision === 'cold-00001' && p.namespace === 'default' && p.function === 'cold') ? true : undefined), 'autoscaler poke');
    expect(pokes.find((p) => p.revision === 'cold-00001')!.queueLength).toBe(1);
    // A fourth request beyond the queue depth (3) is refused at once.
    const over = await call('/default/cold/?id=4');
    expect(over.status).toBe(503);
    expect(over.json.code).toBe('queue_full');
    setEndpoints([...endpoints, { fn: 'cold', rev: 'cold-00001', address: up.live! }]);
    const done = await Promise.all(waiting);
    expect(done.map((r) => r.status)).toEqual([200, 200, 200]);
    // containerConcurrency 1 releases one at a time, so the upstream saw them in arrival order.
    const order = done.map((r) => [new URL(r.json.path, 'http://x').searchParams.get('id'), r.json.seq] as const);
    expect([...order].sort((a, b) => a[1] - b[1]).map((o) => o[0])).toEqual(['1', '2', '3']);
    // The per-second stats reached the autoscaler too.
    await eventually(() => (statsPushes.some((s) => Array.isArray(s.revisions) && (s.revisions).some((r) => r.revision === 'cold-00001' && r.requests > 0)) ? true : undefined), 'stats push with cold requests');
  });

  it("activator: 504 when no endpoint appears within the revision's timeout", { timeout: 30_000 }, async () => {
    const t0 = Date.now();
    const r = await call('/default/slow/');
    expect(r.status).toBe(504);
    expect(r.json.code).toBe('activation_timeout');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('counts a teleport exactly when a key changes owner, and missing keys', { timeout: 60_000 }, async () => {
    const before = await stats();
    const zero = { teleports: 0, stickyRequests: 0, stickyKeyMissing: 0, stickyHitRatio: 0 } as FunctionStatsJson;
    const fnStats = (s: RouterStatsJson): FunctionStatsJson => s.functions.find((f) => f.function === 'sticky') ?? zero;
    const first = await call('/default/sticky/', { 'x-session': 'alice' });
    const owner = first.json.name;
    for (let i = 0; i < 5; i++) expect((await call('/default/sticky/', { 'x-session': 'alice' })).json.name).toBe(owner);
    expect(fnStats(await stats()).teleports).toBe(0);
    // Remove the owner: alice moves to the other worker (one teleport), and stays there.
    const ownerAddress = owner === 's1' ? up.s1! : up.s2!;
    const saved = endpoints;
    setEndpoints(endpoints.filter((e) => e.address !== ownerAddress));
    await waitEndpoints(router.admin, saved.length - 1);
    for (let i = 0; i < 3; i++) expect((await call('/default/sticky/', { 'x-session': 'alice' })).json.name).not.toBe(owner);
    expect(fnStats(await stats()).teleports).toBe(1);
    // The owner returns: alice goes back (a second teleport).
    setEndpoints(saved);
    await waitEndpoints(router.admin, saved.length);
    for (let i = 0; i < 3; i++) expect((await call('/default/sticky/', { 'x-session': 'alice' })).json.name).toBe(owner);
    await call('/default/sticky/');
    const after = fnStats(await stats());
    expect(after.teleports).toBe(2);
    expect(after.stickyRequests - fnStats(before).stickyRequests).toBe(12);
    expect(after.stickyKeyMissing - fnStats(before).stickyKeyMissing).toBe(1);
    expect(after.stickyHitRatio).toBe(1);
    const metrics = await (await request(`${router.admin}/metrics`)).body.text();
    expect(metrics).toMatch(/orrery_router_sticky_teleports_total\{namespace="default",function="sticky"\} 2/);
    expect(metrics).toMatch(/orrery_router_sticky_requests_total\{namespace="default",function="sticky"\} 12/);
    expect(metrics).toMatch(/orrery_router_sticky_key_missing_total\{namespace="default",function="sticky"\} 1/);
    for (const name of ['orrery_router_requests_total', 'orrery_router_request_duration_seconds', 'orrery_router_overhead_seconds', 'orrery_router_queue_depth', 'orrery_router_admit_results_total']) expect(metrics).toContain(name);
  });

  it('quarantines a refusing endpoint at once and retries the request elsewhere', { timeout: 30_000 }, async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => call('/default/flaky/')));
    expect(results.every((r) => r.status === 200 && r.json.name === 'live')).toBe(true);
    const s = await stats();
    expect(s.quarantined.map((q) => q.address)).toContain(deadAddress);
    const errorsAfter = s.dialErrors;
    expect(errorsAfter).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 10; i++) expect((await call('/default/flaky/')).status).toBe(200);
    expect((await stats()).dialErrors).toBe(errorsAfter);
  });

  it('a worker that dies mid-request: idempotent requests go to another worker, a POST fails rather than running twice', { timeout: 30_000 }, async () => {
    const before = (await stats()).upstreamRetries;
    const gets = await Promise.all(Array.from({ length: 12 }, (_, i) => call('/default/dying/', {}, i % 2 ? 'GET' : 'DELETE')));
    expect(gets.map((r) => r.status)).toEqual(gets.map(() => 200));
    expect(gets.every((r) => r.json.name === 'live')).toBe(true);
    // Some reached the dying worker first and were retried (else this proves nothing).
    expect(dyingRequests).toBeGreaterThan(0);
    expect((await stats()).upstreamRetries - before).toBe(dyingRequests);

    const seen = dyingRequests;
    const post = await call('/default/dying-only/', { 'content-type': 'text/plain' }, 'POST', 'once');
    expect(post.status).toBe(502);
    expect(post.json.code).toBe('upstream_error');
    expect(dyingRequests).toBe(seen + 1);
    const bodiless = await call('/default/dying-only/', {}, 'POST');
    expect(bodiless.status).toBe(502);
    expect(dyingRequests).toBe(seen + 2);
  });

  it("a draining worker's refusal goes to another worker (any method: it ran nothing); a function's own 503 is passed on", { timeout: 30_000 }, async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => call('/default/drainy/', {}, i % 2 ? 'GET' : 'POST')));
    expect(answers.map((r) => `${r.status} ${r.json.name}`)).toEqual(answers.map(() => '200 live'));
    expect(drainingRequests).toBeGreaterThan(0);
    const own = await call('/default/unavailable/');
    expect([own.status, own.json.code]).toEqual([503, 'mine']);
  });

  it('a POST whose body the draining worker was sent goes to another worker with that body (the router holds bodies up to 64 KiB until the answer begins)', { timeout: 30_000 }, async () => {
    const body = JSON.stringify({ order: 'x'.repeat(20_000) });
    // A client's orrery-router-cannot-resend is dropped: the router could resend these bodies.
    const answers = await Promise.all(Array.from({ length: 8 }, () => call('/default/drainy-body/', { 'content-type': 'application/json', 'orrery-router-cannot-resend': '1' }, 'POST', body)));
    expect(answers.map((r) => `${r.status} ${r.json.name} ${r.json.body === body} ${r.json.headers['orrery-router-cannot-resend']}`)).toEqual(answers.map(() => '200 live true undefined'));
    // The draining worker was sent (and read) some of them before its first refusal quarantined it.
    expect(bodyDrainingRequests).toBeGreaterThan(0);
  });

  it('a body too large to hold (or chunked) tells the worker the router cannot resend it, and a draining worker runs it instead of refusing', { timeout: 30_000 }, async () => {
    const large = 'y'.repeat(100_000);
    const sized = await call('/default/drainy-stream/', { 'content-type': 'text/plain' }, 'POST', large);
    expect([sized.status, sized.json.name, (sized.json as unknown as { bytes: number }).bytes]).toEqual([200, 'drainer', 100_000]);
    const res = await pool.request({ path: '/default/drainy-stream/', method: 'POST', headers: { 'content-type': 'text/plain' }, body: Readable.from([Buffer.from('abc'), Buffer.from('defg')]) });
    const streamed = (await res.body.json()) as { name: string; bytes: number; chunked: boolean };
    expect([res.statusCode, streamed]).toEqual([200, { name: 'drainer', bytes: 7, chunked: true }]);
  });

  it('a request whose only worker is draining waits for a new one instead of failing 503, and the draining worker is not asked again', { timeout: 40_000 }, async () => {
    const saved = endpoints;
    const pending = call('/default/drained/', {}, 'POST', 'a body the draining worker is sent first');
    await eventually(async () => (lastDrainingRequests === 1 && (await stats()).revisions.find((r) => r.revision === 'drained-00001')?.queued === 1 ? true : undefined), 'refused by the draining worker, then queued');
    // Another request meanwhile does not go to the draining worker either: it waits too.
    const second = call('/default/drained/');
    await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'drained-00001')?.queued === 2 ? true : undefined), 'the second request queued');
    expect(lastDrainingRequests).toBe(1);
    setEndpoints([...saved, { fn: 'drained', rev: 'drained-00001', address: up.live! }]);
    const [a, b] = await Promise.all([pending, second]);
    expect([a.status, a.json.name, a.json.method, a.json.body, b.status, b.json.name]).toEqual([200, 'live', 'POST', 'a body the draining worker is sent first', 200, 'live']);
    expect(lastDrainingRequests).toBe(1);
    setEndpoints(saved);
  });

  it('a POST refused draining while its client is still sending the body goes to the next worker: what came so far, then the rest', { timeout: 40_000 }, async () => {
    const saved = endpoints;
    const queued = async () => (await stats()).revisions.find((r) => r.revision === 'drained-partial-00001')?.queued;
    const first = `{"order":"${'p'.repeat(10_000)}`;
    const rest = `${'q'.repeat(5_000)}"}`;
    const post = twoPartPost<Echo>(`${router.url}/default/drained-partial/`, 'application/json', first, rest);
    // The rest only once the request waits for a worker again: it was refused mid-body.
    await eventually(async () => (partialDrainingRequests === 1 && (await queued()) === 1 ? true : undefined), 'refused mid-body, then queued');
    setEndpoints([...saved, { fn: 'drained-partial', rev: 'drained-partial-00001', address: up.live! }]);
    await eventually(async () => ((await queued()) === 0 ? true : undefined), 'sent to the live worker');
    post.finish();
    const r = await post.answer;
    expect([r.status, r.json.name, r.json.method, r.json.body === first + rest]).toEqual([200, 'live', 'POST', true]);
    expect(r.json.headers['orrery-router-cannot-resend']).toBeUndefined();
    expect(partialDrainingRequests).toBe(1);
    setEndpoints(saved);
  });

  it('a request released from the activator queue to a worker that is gone waits again and goes to the next one', { timeout: 40_000 }, async () => {
    const saved = endpoints;
    const pending = call('/default/phoenix/');
    await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'phoenix-00001')?.queued === 1 ? true : undefined), 'queued while phoenix has no worker');
    // Its first worker refuses (it died just after it was listed): the request is released to it, refused, and waits again.
    const gone = await freeDeadAddress();
    const before = (await stats()).dialErrors;
    setEndpoints([...saved, { fn: 'phoenix', rev: 'phoenix-00001', address: gone }]);
    await eventually(async () => ((await stats()).dialErrors > before ? true : undefined), 'the released request met the dead worker');
    await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'phoenix-00001')?.queued === 1 ? true : undefined), 'queued again');
    setEndpoints([...saved, { fn: 'phoenix', rev: 'phoenix-00001', address: gone }, { fn: 'phoenix', rev: 'phoenix-00001', address: up.live! }]);
    const r = await pending;
    expect([r.status, r.json.name]).toEqual([200, 'live']);
    expect((await stats()).revisions.find((x) => x.revision === 'phoenix-00001')?.queued).toBe(0);
    setEndpoints(saved);
  });

  it('a POST whose every dial is refused (a rollout stopped all the workers) waits for a live worker instead of failing after --dial-retries', { timeout: 40_000 }, async () => {
    const saved = endpoints;
    const dead: typeof endpoints = [];
    for (let i = 0; i < 4; i++) dead.push({ fn: 'rollout', rev: 'rollout-00001', address: await freeDeadAddress() });
    setEndpoints([...saved, ...dead]);
    await waitEndpoints(router.admin, saved.length + dead.length);
    const before = (await stats()).dialErrors;
    // Four refusals in a row: more than --dial-retries (2) allows, within the refused-dial budget.
    const pending = call('/default/rollout/', {}, 'POST');
    await eventually(async () => ((await stats()).dialErrors >= before + dead.length ? true : undefined), 'every listed worker refused');
    await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'rollout-00001')?.queued === 1 ? true : undefined), 'waits in the activator queue');
    setEndpoints([...saved, ...dead, { fn: 'rollout', rev: 'rollout-00001', address: up.live! }]);
    const r = await pending;
    expect([r.status, r.json.name]).toEqual([200, 'live']);
    setEndpoints(saved);
  });

  it('requests waiting for a revision that traffic moves off go to the revision it moves to', { timeout: 40_000 }, async () => {
    const pending = Promise.all([call('/default/moving/'), call('/default/moving/', {}, 'POST')]);
    await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'moving-00001')?.queued === 2 ? true : undefined), 'both wait for moving-00001 (no worker)');
    g.write('routes.yaml', routesYaml.replace('[{revisionName: moving-00001, percent: 100}]', '[{revisionName: moving-00002, percent: 100}]'));
    const answers = await pending;
    expect(answers.map((r) => `${r.status} ${r.json.name}`)).toEqual(['200 live', '200 live']);
    const s = await stats();
    expect(s.revisions.find((r) => r.revision === 'moving-00001')?.queued).toBe(0);
    g.write('routes.yaml', routesYaml);
  });

  it('a request refused draining after traffic moved off its revision goes to the revision traffic names now, at once', { timeout: 40_000 }, async () => {
    const pending = call('/default/shifting/', {}, 'POST');
    await eventually(async () => (heldArrived ? true : undefined), 'the request reached the old revision\'s worker');
    g.write('routes.yaml', routesYaml.replace('[{revisionName: shifting-00001, percent: 100}]', '[{revisionName: shifting-00002, percent: 100}]'));
    // A probe answered by the new revision's worker says the router has the new routes (sent
    // before they loaded, it is refused by the old worker, waits, and is moved when they load).
    const probe = await call('/default/shifting/');
    expect([probe.status, probe.json.name]).toEqual([200, 'live']);
    const refusedAt = performance.now();
    releaseHeld!();
    releaseHeld = undefined;
    const r = await pending;
    // Before, it waited in the retired revision's queue for a worker it never got: 504 after 20 s.
    expect([r.status, r.json.name, r.json.method]).toEqual([200, 'live', 'POST']);
    expect(performance.now() - refusedAt).toBeLessThan(5_000);
    expect((await stats()).revisions.find((x) => x.revision === 'shifting-00001')?.queued).toBe(0);
    g.write('routes.yaml', routesYaml);
  });

  it('a request whose last worker is gone waits in the activator queue for a new one instead of failing', { timeout: 40_000 }, async () => {
    const before = (await stats()).dialErrors;
    const pending = call('/default/stale/');
    await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'stale-00001')?.queued === 1 ? true : undefined), 'requeued after the dial error');
    expect((await stats()).dialErrors).toBeGreaterThan(before);
    await eventually(() => (pokes.some((p) => p.revision === 'stale-00001') ? true : undefined), 'autoscaler poked');
    setEndpoints([...endpoints, { fn: 'stale', rev: 'stale-00001', address: up.live! }]);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.json.name).toBe('live');
  });
});
