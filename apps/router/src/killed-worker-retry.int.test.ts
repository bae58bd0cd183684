/**
 * A worker SIGKILLed with a request on it, through a real `orrery-router` and real processes.
 * Whether the request may go to another worker depends on what the worker's kernel says: a
 * socket closed with the request still unread answers with a reset (the request never ran: any
 * method goes again), one closed after the worker read it answers with a FIN (it may have run: a
 * POST fails rather than running twice). idempotent-retry.ts `neverReadByWorker`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson, type Started } from './testing/processes.ts';

const MORTAL = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'mortal-worker.mjs');
const g = new ProcessGroup();
let router: { url: string; admin: string };
let pool: Pool;
let live = '';

async function stats(): Promise<RouterStatsJson> {
  return (await (await fetch(`${router.admin}/v1/stats`)).json()) as RouterStatsJson;
}

/** The function `mortal` served by `addresses`; waits until the router has them. */
async function serveMortalBy(addresses: string[]): Promise<void> {
  g.write('endpoints.yaml', endpointsYaml(addresses.map((address) => ({ fn: 'mortal', rev: 'mortal-00001', address }))));
  await eventually(async () => ((await stats()).endpoints.length === addresses.length ? true : undefined), `${addresses.length} endpoints loaded`);
}

async function mortalWorker(mode: 'stalled' | 'reading'): Promise<{ address: string } & Started> {
  const s = await g.start([MORTAL, '--mode', mode], /listening http:\/\/(127\.0\.0\.1:\d+)/, `mortal worker (${mode})`);
  return { address: s.match[1]!, child: s.child, output: s.output };
}

async function send(method: string, body?: string): Promise<{ status: number; json: { name?: string; code?: string; method?: string; body?: string } }> {
  const res = await pool.request({ path: '/default/mortal/', method, body, headers: body ? { 'content-type': 'text/plain' } : {} });
  return { status: res.statusCode, json: (await res.body.json()) as { name?: string } };
}

async function killWhen(worker: Started, line: string): Promise<void> {
  await eventually(() => (worker.output().includes(line) ? true : undefined), `the worker printed "${line}"`);
  // The request's bytes reach the worker's socket within this (same host, one write).
  await new Promise((r) => setTimeout(r, 100));
  worker.child.kill('SIGKILL');
}

beforeAll(async () => {
  live = (await g.upstream('live')).address;
  const routesPath = g.write('routes.yaml', functionYaml({ name: 'mortal', revisions: ['mortal-00001'], timeoutSeconds: 20 }));
  g.write('endpoints.yaml', endpointsYaml([]));
  router = await g.router(['--routes-file', routesPath, '--endpoints-file', join(g.dir, 'endpoints.yaml')]);
  pool = new Pool(router.url, { connections: 4 });
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await g.stopAll();
});

/**
 * Sends one request to `mortal` while a `mode` worker is its only worker; once the worker shows
 * `line` (it took the connection, or read the request) a live worker is added and the first one
 * is SIGKILLed. The answer, and how many requests the router sent to another worker meanwhile.
 */
async function killedUnder(mode: 'stalled' | 'reading', line: string, method: string, body?: string) {
  const worker = await mortalWorker(mode);
  await serveMortalBy([worker.address]);
  const before = (await stats()).upstreamRetries;
  const answer = send(method, body);
  await eventually(() => (worker.output().includes(line) ? true : undefined), `the request reached the ${mode} worker`);
  await serveMortalBy([worker.address, live]);
  await killWhen(worker, line);
  const r = await answer;
  return { ...r, retries: (await stats()).upstreamRetries - before };
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
