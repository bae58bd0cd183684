/**
 * A worker SIGKILLed with a request on it, through a real `orrery-router` and real processes.
 * Whether the request may go to another worker depends on what the worker's kernel says: a
 * socket closed with the request still unread answers with a reset (the request never ran: any
 * method goes again), one closed after the worker read it answers with a FIN (it may have run: a
 * POST fails rather than running twice). idempotent-retry.ts `neverReadByWorker`. Unless its
 * Function says `onWorkerLoss: replay`: then the request goes to another worker with the same
 * Orrery-Invocation-Id (idempotent-retry.ts `mayReplayElsewhere`).
 */
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson, type Started } from './testing/processes.ts';
import { twoPartPost } from './testing/two-part-post.ts';

const MORTAL = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'mortal-worker.mjs');
const g = new ProcessGroup();
let router: { url: string; admin: string; output: () => string };
let pool: Pool;
let live = '';

async function stats(): Promise<RouterStatsJson> {
  return (await (await fetch(`${router.admin}/v1/stats`)).json()) as RouterStatsJson;
}

/**
 * The functions under test, one revision each: `mortal` without onWorkerLoss (absent = fail),
 * `phoenix` with `replay`, `stoic` with `fail` written out.
 */
type Fn = 'mortal' | 'phoenix' | 'stoic';

/** The function `fn` served by `addresses` (and no other); waits until the router has them. */
async function serveBy(addresses: string[], fn: Fn = 'mortal'): Promise<void> {
  g.write('endpoints.yaml', endpointsYaml(addresses.map((address) => ({ fn, rev: `${fn}-00001`, address }))));
  await eventually(async () => ((await stats()).endpoints.length === addresses.length ? true : undefined), `${addresses.length} endpoints loaded`);
}

async function mortalWorker(mode: 'stalled' | 'reading' | 'partial'): Promise<{ address: string } & Started> {
  const s = await g.start([MORTAL, '--mode', mode], /listening http:\/\/(127\.0\.0\.1:\d+)/, `mortal worker (${mode})`);
  return { address: s.match[1]!, child: s.child, output: s.output };
}

interface Answer {
  status: number;
  json: { name?: string; code?: string; method?: string; body?: string; headers?: Record<string, string> };
}

async function send(method: string, body?: string, fn: Fn = 'mortal', headers: Record<string, string> = {}): Promise<Answer> {
  const res = await pool.request({ path: `/default/${fn}/`, method, body, headers: body ? { 'content-type': 'text/plain', ...headers } : headers });
  return { status: res.statusCode, json: (await res.body.json()) as Answer['json'] };
}

async function killWhen(worker: Started, line: string): Promise<void> {
  await eventually(() => (worker.output().includes(line) ? true : undefined), `the worker printed "${line}"`);
  // The request's bytes reach the worker's socket within this (same host, one write).
  await new Promise((r) => setTimeout(r, 100));
  worker.child.kill('SIGKILL');
}

beforeAll(async () => {
  live = (await g.upstream('live')).address;
  const routesPath = g.write(
    'routes.yaml',
    functionYaml({ name: 'mortal', revisions: ['mortal-00001'], timeoutSeconds: 20 }) +
      functionYaml({ name: 'phoenix', revisions: ['phoenix-00001'], timeoutSeconds: 20, onWorkerLoss: 'replay' }) +
      functionYaml({ name: 'stoic', revisions: ['stoic-00001'], timeoutSeconds: 20, onWorkerLoss: 'fail' }),
  );
  g.write('endpoints.yaml', endpointsYaml([]));
  router = await g.router(['--routes-file', routesPath, '--endpoints-file', join(g.dir, 'endpoints.yaml')]);
  pool = new Pool(router.url, { connections: 4 });
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await g.stopAll();
});

/**
 * Sends one request to `fn` while a `mode` worker is its only worker; once the worker shows
 * `line` (it took the connection, or read the request) a live worker is added and the first one
 * is SIGKILLed. The answer, how many requests the router sent to another worker meanwhile (and
 * how many of them were replays), and what the killed worker printed.
 */
async function killedUnder(mode: 'stalled' | 'reading', line: string, method: string, body?: string, fn: Fn = 'mortal', headers: Record<string, string> = {}) {
  const worker = await mortalWorker(mode);
  await serveBy([worker.address], fn);
  const before = await stats();
  const answer = send(method, body, fn, headers);
  await eventually(() => (worker.output().includes(line) ? true : undefined), `the request reached the ${mode} worker`);
  await serveBy([worker.address, live], fn);
  await killWhen(worker, line);
  const r = await answer;
  const after = await stats();
  return { ...r, retries: after.upstreamRetries - before.upstreamRetries, replays: after.upstreamReplays - before.upstreamReplays, killed: worker.output() };
}

/** An address nothing listens on: a dial to it is refused. */
async function unusedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return `127.0.0.1:${port}`;
}

/** What the reading worker printed for the request it read: `request <METHOD> <invocation id or -> <body bytes>`. */
function readLine(output: string): { id: string; bytes: number } {
  const m = /request \S+ (\S+) (\d+)/.exec(output)!;
  return { id: m[1]!, bytes: Number(m[2]) };
}

describe('a worker SIGKILLed with a request on it', () => {
  it('a POST it never read goes to another worker and runs once there', { timeout: 40_000 }, async () => {
    const r = await killedUnder('stalled', 'connection', 'POST');
    expect([r.status, r.json.name, r.json.method, r.retries]).toEqual([200, 'live', 'POST', 1]);
  });

  it('a POST it had read fails with 502 and is not sent again', { timeout: 40_000 }, async () => {
    const r = await killedUnder('reading', 'request POST', 'POST');
    expect([r.status, r.json.code, r.retries]).toEqual([502, 'upstream_error', 0]);
  });

  it('a POST with a body it never read fails too: the body was streamed and cannot be sent again', { timeout: 40_000 }, async () => {
    const r = await killedUnder('stalled', 'connection', 'POST', 'order #1');
    expect([r.status, r.json.code, r.retries]).toEqual([502, 'upstream_error', 0]);
  });

  it('a GET it had read goes to another worker (idempotent)', { timeout: 40_000 }, async () => {
    const r = await killedUnder('reading', 'request GET', 'GET');
    expect([r.status, r.json.name, r.retries]).toEqual([200, 'live', 1]);
  });
});

describe('a Function with onWorkerLoss: replay', () => {
  const ID = /^[0-9a-f]{32}$/;

  it('a POST whose worker read its body and was SIGKILLed is answered by another worker, with the same Orrery-Invocation-Id', { timeout: 40_000 }, async () => {
    const body = JSON.stringify({ item: 'apple', qty: 2 });
    const r = await killedUnder('reading', 'request POST', 'POST', body, 'phoenix');
    const first = readLine(r.killed);
    expect([r.status, r.json.name, r.json.method, r.json.body, r.retries, r.replays]).toEqual([200, 'live', 'POST', body, 1, 1]);
    expect(first).toEqual({ id: expect.stringMatching(ID), bytes: body.length });
    expect(r.json.headers!['orrery-invocation-id']).toBe(first.id);
    expect(r.json.headers!['content-length']).toBe(String(body.length));
  });

  it('the same through the node:http ingress (--ingress node), whose bodies are IncomingMessages', { timeout: 60_000 }, async () => {
    const nodeRouter = await g.router(['--ingress', 'node', '--routes-file', join(g.dir, 'routes.yaml'), '--endpoints-file', join(g.dir, 'endpoints.yaml')]);
    const saved = { router, pool };
    router = nodeRouter;
    pool = new Pool(nodeRouter.url, { connections: 4 });
    try {
      const body = 'order #9';
      const r = await killedUnder('reading', 'request PATCH', 'PATCH', body, 'phoenix');
      expect([r.status, r.json.name, r.json.method, r.json.body, r.replays]).toEqual([200, 'live', 'PATCH', body, 1]);
      expect(r.json.headers!['orrery-invocation-id']).toBe(readLine(r.killed).id);
    } finally {
      await pool.close();
      ({ router, pool } = saved);
    }
  });

  it('refused dials before the worker loss do not use up its replay (a rollout refuses several in a row)', { timeout: 40_000 }, async () => {
    // Found by the 30-minute soak: right after a rollover, a request whose dials to the retiring
    // workers were refused had used its --dial-retries (2) before its worker was lost, and
    // failed 502 although the replay would have run it once.
    const dead = [await unusedAddress(), await unusedAddress()];
    const before = await stats();
    const refusals = async (n: number) => eventually(async () => ((await stats()).dialErrors >= before.dialErrors + n ? true : undefined), `${n} refused dials`);
    await serveBy([dead[0]!], 'phoenix');
    const answer = send('POST', 'order #4', 'phoenix');
    await refusals(1);
    await serveBy([dead[1]!], 'phoenix');
    await refusals(2);
    const worker = await mortalWorker('reading');
    await serveBy([worker.address], 'phoenix');
    await eventually(() => (worker.output().includes('request POST') ? true : undefined), 'the request reached the worker after two refusals');
    await serveBy([worker.address, live], 'phoenix');
    await killWhen(worker, 'request POST');
    const r = await answer;
    const after = await stats();
    expect([r.status, r.json.name, r.json.body, after.upstreamReplays - before.upstreamReplays]).toEqual([200, 'live', 'order #4', 1]);
    expect(r.json.headers!['orrery-invocation-id']).toBe(readLine(worker.output()).id);
  });

  it('a POST whose worker was lost while the body was still arriving: the other worker gets what came so far, then the rest, with the same id', { timeout: 40_000 }, async () => {
    const worker = await mortalWorker('partial');
    await serveBy([worker.address], 'phoenix');
    const before = await stats();
    const first = `{"items":"${'a'.repeat(8_000)}`;
    const rest = `${'b'.repeat(4_000)}"}`;
    const post = twoPartPost<Answer['json']>(`${router.url}/default/phoenix/`, 'text/plain', first, rest);
    await eventually(() => (worker.output().includes(`read ${first.length}`) ? true : undefined), 'the worker read the first part');
    await serveBy([worker.address, live], 'phoenix');
    worker.child.kill('SIGKILL');
    await eventually(async () => ((await stats()).upstreamReplays - before.upstreamReplays === 1 ? true : undefined), 'the router replayed the request');
    post.finish();
    const r = await post.answer;
    const id = /head POST (\S+)/.exec(worker.output())![1]!;
    expect([r.status, r.json.name, r.json.method, r.json.body === first + rest]).toEqual([200, 'live', 'POST', true]);
    expect(id).toMatch(ID);
    expect(r.json.headers!['orrery-invocation-id']).toBe(id);
  });

  it('a bodiless POST too', { timeout: 40_000 }, async () => {
    const r = await killedUnder('reading', 'request POST', 'POST', undefined, 'phoenix');
    expect([r.status, r.json.name, r.json.method, r.replays]).toEqual([200, 'live', 'POST', 1]);
    expect(r.json.headers!['orrery-invocation-id']).toBe(readLine(r.killed).id);
  });

  it('a body over 64 KiB is not held, so its POST fails with 502 as before', { timeout: 40_000 }, async () => {
    const r = await killedUnder('reading', 'request POST', 'POST', 'x'.repeat(64 * 1024 + 1), 'phoenix');
    expect([r.status, r.json.code, r.retries, r.replays]).toEqual([502, 'upstream_error', 0, 0]);
  });

  it('a client-sent Orrery-Invocation-Id never reaches the worker: the router mints its own', { timeout: 40_000 }, async () => {
    const forged = '0123456789abcdef0123456789abcdef';
    const r = await killedUnder('reading', 'request POST', 'POST', 'order #2', 'phoenix', { 'Orrery-Invocation-Id': forged });
    const first = readLine(r.killed).id;
    expect(first).toMatch(ID);
    expect(first).not.toBe(forged);
    expect([r.status, r.json.headers!['orrery-invocation-id']]).toEqual([200, first]);
    // Each request gets its own.
    await serveBy([live], 'phoenix');
    const a = await send('POST', 'x', 'phoenix', { 'orrery-invocation-id': forged });
    const b = await send('POST', 'x', 'phoenix');
    expect(a.json.headers!['orrery-invocation-id']).toMatch(ID);
    expect(new Set([forged, first, a.json.headers!['orrery-invocation-id'], b.json.headers!['orrery-invocation-id']]).size).toBe(4);
  });
});

describe('a Function with onWorkerLoss: fail (or none)', () => {
  it('a POST whose worker read it and was SIGKILLed fails with 502; the worker got no invocation id', { timeout: 40_000 }, async () => {
    const r = await killedUnder('reading', 'request POST', 'POST', 'order #3', 'stoic');
    expect([r.status, r.json.code, r.retries, r.replays]).toEqual([502, 'upstream_error', 0, 0]);
    expect(readLine(r.killed)).toEqual({ id: '-', bytes: 8 });
    // The router says why neither a retry nor a replay took it.
    await eventually(async () => (/POST to revision default\/stoic-00001 failed with 502 upstream_error after 1 attempt\(s\), 0 after a loss: .*replay false/.test(router.output()) ? true : undefined), 'the failure in the router log');
  });

  it('a client-sent Orrery-Invocation-Id is dropped there too', { timeout: 20_000 }, async () => {
    for (const fn of ['stoic', 'mortal'] as const) {
      await serveBy([live], fn);
      const r = await send('POST', 'x', fn, { 'Orrery-Invocation-Id': '0123456789abcdef0123456789abcdef' });
      expect([r.status, r.json.name, r.json.headers!['orrery-invocation-id']]).toEqual([200, 'live', undefined]);
    }
  });
});
