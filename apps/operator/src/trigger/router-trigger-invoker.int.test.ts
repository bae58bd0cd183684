/**
 * The trigger's HTTP call (router-trigger-invoker.ts) against a real HTTP server on loopback
 * standing in for the router: what is sent (URL, method, headers, body), what comes back
 * (status, kept body), and every way it fails without throwing (refused, deadline, abort,
 * a header value node refuses, no router configured).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouterTriggerInvoker } from './router-trigger-invoker.ts';
import { invocationSucceeded, invocationUrl } from './trigger-invoker.ts';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const seen: Seen[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url?.includes('/slow')) return; // never answers
      if (req.url?.includes('/moved')) {
        res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
        return;
      }
      res.writeHead(req.url?.includes('/fail') ? 500 : 200).end('x'.repeat(10_000));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const call = { namespace: 'shop', function: 'report', trigger: 'cron/nightly', method: 'POST', path: '/run?x=1', timeoutMs: 2000 };

describe('RouterTriggerInvoker', () => {
  it('sends the call to <router>/<namespace>/<function><path> with the trigger headers winning', async () => {
    const invoker = new RouterTriggerInvoker({ routerUrl: () => base });
    const r = await invoker.invoke({ ...call, headers: { 'Content-Type': 'application/json', 'orrery-trigger': 'forged' }, body: '{"a":1}' });
    expect(r.status).toBe(200);
    expect(invocationSucceeded(r)).toBe(true);
    expect(r.body).toBeUndefined();
    expect(r.finishedAt.getTime()).toBeGreaterThanOrEqual(r.startedAt.getTime());
    const s = seen.at(-1)!;
    expect(s).toMatchObject({ method: 'POST', url: '/shop/report/run?x=1', body: '{"a":1}' });
    expect(s.headers['content-type']).toBe('application/json');
    expect(s.headers['orrery-trigger']).toBe('cron/nightly');
    expect(s.headers['content-length']).toBe('7');
  });

  it('keeps only keepBodyBytes of the answer and reports a 500 as a plain status', async () => {
    const invoker = new RouterTriggerInvoker({ routerUrl: () => base });
    const r = await invoker.invoke({ ...call, path: '/fail', keepBodyBytes: 5 });
    expect(r).toMatchObject({ status: 500 });
    expect(r.body?.toString()).toBe('xxxxx');
    expect(invocationSucceeded(r)).toBe(false);
  });

  it('does not follow a redirect (3xx is a failure, the operator goes nowhere else)', async () => {
    const before = seen.length;
    const r = await new RouterTriggerInvoker({ routerUrl: () => base }).invoke({ ...call, method: 'GET', path: '/moved' });
    expect(r.status).toBe(302);
    expect(invocationSucceeded(r)).toBe(false);
    expect(seen.length).toBe(before + 1);
  });

  it('fails without throwing: deadline, abort, refused connection, bad header value, no router', async () => {
    const invoker = new RouterTriggerInvoker({ routerUrl: () => base });
    const slow = await invoker.invoke({ ...call, path: '/slow', timeoutMs: 200 });
    expect(slow.status).toBeUndefined();
    expect(slow.error).toMatch(/no complete answer within 200 ms/);

    const abort = new AbortController();
    const pending = invoker.invoke({ ...call, path: '/slow', signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    expect((await pending).error).toMatch(/aborted/);

    const refused = await new RouterTriggerInvoker({ routerUrl: () => 'http://127.0.0.1:1' }).invoke(call);
    expect(refused.error).toMatch(/ECONNREFUSED/);

    const bad = await invoker.invoke({ ...call, headers: { 'x-a': 'line\r\nInjected: 1' } });
    expect(bad.error).toMatch(/request refused/);
    expect(bad.error).not.toContain('Injected');

    const none = await new RouterTriggerInvoker({ routerUrl: () => undefined }).invoke(call);
    expect(none.error).toMatch(/--router-url/);
  });

  it('builds URLs with one slash between the parts', () => {
    expect(invocationUrl('http://r:8080/', { namespace: 'a', function: 'b', path: '/' })).toBe('http://r:8080/a/b/');
    expect(invocationUrl('http://r', { namespace: 'a', function: 'b', path: 'x' })).toBe('http://r/a/b/x');
  });
});
