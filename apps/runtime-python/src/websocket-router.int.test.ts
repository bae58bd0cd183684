/**
 * Issue 25, a Python worker's WebSockets through a real `orrery-router` (the Node runtime's case is
 * apps/runtime/src/websocket-router.int.test.ts): the router strips the function's prefix, counts
 * the open socket as one in-flight request in front of a containerConcurrency 1 worker (a second
 * handshake waits in the router's queue), releases it once when the socket closes, and the
 * worker's SIGTERM reaches the client as 1001.
 */
import { endpointsYaml, functionYaml, ProcessGroup, type RouterStatsJson } from '@orrery/router/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { eventually, stopRuntime, type RuntimeProcess } from '../../runtime/src/testing/runtime-process.ts';
import { startPythonRuntime } from './testing/python-runtime-process.ts';

const WS_ECHO = fileURLToPath(new URL('../fixtures/ws_echo.py', import.meta.url));
const REV = 'echopy-00001';
const g = new ProcessGroup();
let router: { url: string; admin: string };
let worker: RuntimeProcess;
const clients: WebSocket[] = [];

interface Client {
  ws: WebSocket;
  next(): Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
}

function open(url: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    clients.push(ws);
    const inbox: string[] = [];
    const waiting: Array<(m: string) => void> = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (d: Buffer) => {
      const w = waiting.shift();
      if (w) w(d.toString());
      else inbox.push(d.toString());
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
    ws.once('error', reject);
    ws.once('open', () => resolve({ ws, closed, next: () => new Promise((r) => (inbox.length > 0 ? r(inbox.shift()!) : waiting.push(r))) }));
  });
}

const wsUrl = (path: string) => `${router.url.replace(/^http/, 'ws')}${path}`;
const revisionStats = async () => ((await (await fetch(`${router.admin}/v1/stats`)).json()) as RouterStatsJson).revisions.find((r) => r.revision === REV);
const workerStats = async () => (await (await fetch(`${worker.url}/v1/stats`)).json()) as { current: { inFlight: number; queued: number; webSockets: number } };

beforeAll(async () => {
  worker = await startPythonRuntime(['--function', 'echopy', '--revision', REV, '--source-file', WS_ECHO, '--container-concurrency', '1', '--timeout-seconds', '20', '--drain-timeout-seconds', '5']);
  const routes = g.write('routes.yaml', functionYaml({ name: 'echopy', revisions: [REV], containerConcurrency: 1, timeoutSeconds: 20 }));
  const endpoints = g.write('endpoints.yaml', endpointsYaml([{ fn: 'echopy', rev: REV, address: new URL(worker.url).host }]));
  router = await g.router(['--routes-file', routes, '--endpoints-file', endpoints]);
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.terminate();
  await stopRuntime(worker);
  await g.stopAll();
});

describe('a Python worker’s WebSockets through the router (containerConcurrency 1)', () => {
  it('echoes, holds one in-flight slot while open, queues a second handshake, releases once, and SIGTERM reaches the client as 1001', { timeout: 30_000 }, async () => {
    const a = await open(wsUrl('/default/echopy/chat?who=py'));
    a.ws.send('whoami');
    expect(await a.next()).toBe('echopy /chat py');
    a.ws.send('hello');
    expect(await a.next()).toBe('hello');
    expect(await revisionStats()).toMatchObject({ inflight: 1, queued: 0 });
    expect((await workerStats()).current).toEqual({ inFlight: 1, queued: 0, webSockets: 1 });

    let secondOpen = false;
    const second = open(wsUrl('/default/echopy/second')).then((c) => ((secondOpen = true), c));
    await eventually(async () => (await revisionStats())?.queued === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(secondOpen).toBe(false);
    a.ws.close(1000, 'done');
    expect(await a.closed).toEqual({ code: 1000, reason: 'done' });
    const b = await second;
    b.ws.send('whoami');
    expect(await b.next()).toBe('echopy /second ');
    expect(await revisionStats()).toMatchObject({ inflight: 1, queued: 0 });

    worker.kill('SIGTERM');
    expect(await b.closed).toEqual({ code: 1001, reason: 'worker draining' });
    await eventually(async () => (await revisionStats())?.inflight === 0);
    expect(await worker.exited).toBe(0);
  });
});
