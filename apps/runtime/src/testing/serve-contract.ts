/** Deploy mode, as a real process: the handler's requests and answers, the reserved paths, flags that refuse to start. */
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopRuntime, type RuntimeProcess } from './runtime-process.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';

export function serveContract(runtime: RuntimeUnderTest): void {
  describe(`${runtime.name} serves a handler (real process)`, () => {
    let rt: RuntimeProcess;
    let split: RuntimeProcess | undefined;
    const base = ['--function', 'probe', '--revision', 'probe-00001', '--namespace', 'team-a', '--source-file', runtime.probe];

    beforeAll(async () => {
      rt = await runtime.start(base);
    }, 60_000);
    afterAll(async () => {
      await stopRuntime(rt);
      await stopRuntime(split);
    });

    it('passes the request to the handler and sends its answer, with ctx', async () => {
      const res = await fetch(`${rt.url}/hello?x=1`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ path: '/hello', revision: 'probe-00001' });
      const env = (await (await fetch(`${rt.url}/env`)).json()) as Record<string, Record<string, unknown>>;
      expect(env.ctx).toEqual({ namespace: 'team-a', function: 'probe', revision: 'probe-00001', hasState: false });
      expect(env.env).toMatchObject({ ORRERY_STATE_URL: null, ORRERY_REVISION: 'probe-00001' });
    });

    it('bodies both ways (declared or chunked), headers kept, a stream sent after the head; HEAD gets the head only', async () => {
      const payload = 'y'.repeat(200_000);
      const res = await fetch(`${rt.url}/echo`, { method: 'PUT', body: payload, headers: { 'x-send': 'hi' } });
      expect([res.status, res.headers.get('x-method'), res.headers.get('x-got')]).toEqual([201, 'PUT', 'hi']);
      expect(await res.text()).toBe(payload);
      const stream = await fetch(`${rt.url}/first-byte-then?ms=100`);
      expect(stream.headers.get('transfer-encoding')).toBe('chunked');
      expect(await stream.text()).toBe('first\nlast\n');
      const chunked = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < 3; i++) c.enqueue(new Uint8Array(500).fill(122));
          c.close();
        },
      });
      expect(await (await fetch(`${rt.url}/length`, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit)).text()).toBe('1500');
      const head = await fetch(`${rt.url}/hello`, { method: 'HEAD' });
      expect([head.status, await head.text()]).toEqual([200, '']);
    });

    it('keeps one keep-alive connection across requests with large, unread and small bodies', { timeout: 60_000 }, async () => {
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
        // /hello leaves the body wholly unread.
        expect(await post('/hello', big)).toBe('200 {"path":"/hello","revision":"probe-00001"}');
        if (runtime.partialReadPath) expect(await post(runtime.partialReadPath, big)).toMatch(/^200 read \d+$/);
        expect(await post('/echo', big)).toBe('201 2000000');
        expect(await post('/hello', 'small')).toBe('200 {"path":"/hello","revision":"probe-00001"}');
        expect(sockets.size).toBe(1);
      } finally {
        agent.destroy();
      }
    });

    it('a throwing handler and an answer it cannot send become JSON 500s', async () => {
      const thrown = await fetch(`${rt.url}/throw`);
      expect(thrown.status).toBe(500);
      expect(await thrown.json()).toEqual({ error: 'the function threw an error; see the worker log', code: 'handler_error' });
      const bad = await fetch(`${rt.url}/not-response`);
      expect(bad.status).toBe(500);
      expect(await bad.json()).toEqual({ error: 'the function returned something other than a Response', code: 'invalid_response' });
      expect(rt.stderr()).toContain('boom from the function');
    });

    it("drops Orrery-Worker-Draining from a function's answer: only the runtime says a request did not run", async () => {
      const res = await fetch(`${rt.url}/claims-draining`);
      expect([res.status, await res.text(), res.headers.get('retry-after')]).toEqual([503, 'busy', '1']);
      expect(res.headers.get('orrery-worker-draining')).toBeNull();
    });

    it('answers health, readiness and stats on the reserved paths', async () => {
      expect(await (await fetch(`${rt.url}/healthz`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${rt.url}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', specialized: true }]);
      const stats = (await (await fetch(`${rt.url}/v1/stats`)).json()) as Record<string, unknown>;
      expect(stats).toMatchObject({ namespace: 'team-a', function: 'probe', revision: 'probe-00001', containerConcurrency: 0, windowSeconds: 1, ready: true, draining: false, current: { inFlight: 0, queued: 0 } });
      expect(stats.window).toEqual({ start: expect.stringMatching(/Z$/), end: expect.stringMatching(/Z$/), averageConcurrency: expect.any(Number), averageInFlight: expect.any(Number), requestCount: expect.any(Number) });
      expect(stats.totalRequests).toBeGreaterThanOrEqual(5);
      const missing = await fetch(`${rt.url}/v1/nothing`);
      expect([missing.status, await missing.json()]).toEqual([404, { error: 'no runtime route /v1/nothing (runtime routes: /healthz, /readyz, /v1/stats, /v1/specialize)', code: 'not_found' }]);
      const wrong = await fetch(`${rt.url}/healthz`, { method: 'DELETE' });
      expect([wrong.status, await wrong.json()]).toEqual([405, { error: 'DELETE is not allowed on /healthz', code: 'method_not_allowed' }]);
      const spec = await fetch(`${rt.url}/v1/specialize`, { method: 'POST', body: '{}' });
      expect([spec.status, ((await spec.json()) as { code: string }).code]).toEqual([409, 'not_pool_worker']);
    });

    it('reports the request count and average concurrency of the last one-second window', { timeout: 30_000 }, async () => {
      // Fire a burst, then read the window that contains it.
      const before = Date.now();
      await Promise.all(Array.from({ length: 8 }, () => fetch(`${rt.url}/sleep?ms=100`).then((r) => r.text())));
      let found = false;
      for (let i = 0; i < 60 && !found; i++) {
        const s = (await (await fetch(`${rt.url}/v1/stats`)).json()) as { window: { start: string; requestCount: number; averageConcurrency: number } };
        if (Date.parse(s.window.start) >= Math.floor(before / 1000) * 1000 && s.window.requestCount >= 1) {
          found = true;
          expect(s.window.averageConcurrency).toBeGreaterThan(0);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(found).toBe(true);
    });

    it('with --admin-port the function gets every path and the runtime routes move; an async entrypoint', { timeout: 60_000 }, async () => {
      split = await runtime.start([...base, '--admin-port', '0', '--entrypoint', 'other']);
      expect(split.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await fetch(`${split.url}/v1/stats`)).text()).toBe('other entrypoint');
      expect(await (await fetch(`${split.url}/healthz`)).text()).toBe('other entrypoint');
      expect((await fetch(`${split.adminUrl}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${split.adminUrl}/v1/stats`)).json()).toMatchObject({ function: 'probe', totalRequests: 2 });
    });

    it('refuses to start with a clear message when the entrypoint is missing or flags are wrong', { timeout: 60_000 }, async () => {
      await expect(runtime.start([...base, '--entrypoint', 'nope'])).rejects.toThrow(runtime.missingEntrypoint);
      await expect(runtime.start(['--function', 'probe'])).rejects.toThrow(/deploy mode needs --revision/);
    });
  });
}
