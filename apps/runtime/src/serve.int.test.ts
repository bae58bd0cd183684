import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

let rt: RuntimeProcess;
let split: RuntimeProcess | undefined;
const base = ['--function', 'probe', '--revision', 'probe-00001', '--namespace', 'team-a', '--source-file', PROBE_FIXTURE];

beforeAll(async () => {
  rt = await startRuntime(base);
}, 60_000);
afterAll(async () => {
  await stopRuntime(rt);
  await stopRuntime(split);
});

describe('orrery-runtime serves a handler (real process)', () => {
  it('passes a Web Request to the handler and returns its Response, with ctx', async () => {
    const res = await fetch(`${rt.url}/hello?x=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/hello', revision: 'probe-00001' });
    const env = await (await fetch(`${rt.url}/env`)).json();
    expect(env.ctx).toEqual({ namespace: 'team-a', function: 'probe', revision: 'probe-00001', hasState: false });
    expect(env.env.ORRERY_STATE_URL).toBeNull();
  });

  it('streams request and response bodies and keeps headers', async () => {
    const payload = 'y'.repeat(200_000);
    const res = await fetch(`${rt.url}/echo`, { method: 'PUT', body: payload, headers: { 'x-send': 'hi' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-method')).toBe('PUT');
    expect(res.headers.get('x-got')).toBe('hi');
    expect(await res.text()).toBe(payload);
    const stream = await fetch(`${rt.url}/first-byte-then?ms=100`);
    expect(await stream.text()).toBe('first\nlast\n');
  });

  it('a body the handler leaves unread (wholly or partly) does not stall the keep-alive connection', { timeout: 60_000 }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const post = (path: string, body: string) =>
      new Promise<string>((resolve, reject) => {
        const req = httpRequest(`${rt.url}${path}`, { method: 'POST', agent }, (res) => {
          sockets.add(res.socket);
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(`${res.statusCode} ${text.length > 100 ? text.length : text}`));
        });
        req.on('error', reject);
        req.end(body);
      });
    const big = 'b'.repeat(2_000_000);
    try {
      expect(await post('/hello', big)).toBe('200 {"path":"/hello","revision":"probe-00001"}');
      expect(await post('/read-some', big)).toMatch(/^200 read \d+$/);
      expect(await post('/echo', big)).toBe('201 2000000');
      expect(await post('/hello', 'small')).toBe('200 {"path":"/hello","revision":"probe-00001"}');
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('turns a throwing handler and a non-Response into JSON 500s', async () => {
    const thrown = await fetch(`${rt.url}/throw`);
    expect(thrown.status).toBe(500);
    expect(await thrown.json()).toMatchObject({ code: 'handler_error' });
    const bad = await fetch(`${rt.url}/not-response`);
    expect(bad.status).toBe(500);
    expect(await bad.json()).toMatchObject({ code: 'invalid_response' });
    expect(rt.stderr()).toContain('boom from the function');
  });

  it('answers health, readiness and stats on the reserved paths', async () => {
    expect((await fetch(`${rt.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${rt.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', specialized: true });
    const stats = await (await fetch(`${rt.url}/v1/stats`)).json();
    expect(stats).toMatchObject({ namespace: 'team-a', function: 'probe', revision: 'probe-00001', containerConcurrency: 0, windowSeconds: 1, ready: true, draining: false });
    expect(stats.totalRequests).toBeGreaterThanOrEqual(5);
    expect(stats.window).toHaveProperty('averageConcurrency');
    const missing = await fetch(`${rt.url}/v1/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
    expect((await fetch(`${rt.url}/v1/specialize`, { method: 'POST', body: '{}' })).status).toBe(409);
  });

  it('reports the request count of the last one-second window', { timeout: 30_000 }, async () => {
    // Fire a burst, then read the window that contains it.
    const before = Date.now();
    await Promise.all(Array.from({ length: 8 }, () => fetch(`${rt.url}/sleep?ms=100`).then((r) => r.text())));
    let found = false;
    for (let i = 0; i < 60 && !found; i++) {
      const s = await (await fetch(`${rt.url}/v1/stats`)).json();
      if (Date.parse(s.window.start) >= Math.floor(before / 1000) * 1000 && s.window.requestCount >= 1) {
        found = true;
        expect(s.window.averageConcurrency).toBeGreaterThan(0);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(found).toBe(true);
  });

  it('with --admin-port the function gets every path, runtime routes move to the admin listener', { timeout: 60_000 }, async () => {
    split = await startRuntime([...base, '--admin-port', '0', '--entrypoint', 'other']);
    expect(split.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${split.url}/v1/stats`)).text()).toBe('other entrypoint');
    expect(await (await fetch(`${split.url}/healthz`)).text()).toBe('other entrypoint');
    expect((await fetch(`${split.adminUrl}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${split.adminUrl}/v1/stats`)).json()).toMatchObject({ function: 'probe', totalRequests: 2 });
  });

  it('refuses to start with a clear message when the entrypoint is missing', { timeout: 60_000 }, async () => {
    await expect(startRuntime([...base, '--entrypoint', 'nope'])).rejects.toThrow(/entrypoint_not_found.*no export named "nope"/);
    await expect(startRuntime(['--function', 'probe'])).rejects.toThrow(/deploy mode needs --revision/);
  });
});
