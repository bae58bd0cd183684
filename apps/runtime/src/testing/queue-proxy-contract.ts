/**
 * The queue-proxy role, as a real process: containerConcurrency, its FIFO and queue_full, the
 * time-to-head timeout (queueing counted), a queued client that goes away, body caps and the
 * SIGTERM drain, and the same drain when the process that started the worker is gone.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { header, ResponseReader, type ReadResult } from '@orrery/router/testing/response-reader';
// The platform's own check (a zombie nobody reaped counts as gone).
import { pidAlive } from '../../../cli/src/platform/pid-alive.ts';
import { eventually, startUnderParent, type RuntimeProcess } from './runtime-process.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';
import { runtimeWorkers } from './runtime-workers.ts';

type Stats = { current: { inFlight: number; queued: number } };
/** The worker's /v1/stats (on its admin listener when `url` says so). */
export const queueStats = async (rt: RuntimeProcess, url = rt.url) => (await (await fetch(`${url}/v1/stats`)).json()) as Stats;

export function queueProxyContract(runtime: RuntimeUnderTest): void {
  describe(`queue-proxy role of ${runtime.name} (real process)`, () => {
    const workers = runtimeWorkers('orrery-runtime-qp-', runtime.start);
    const worker = (extra: string[]) => workers.start(['--function', 'probe', '--revision', 'probe-00001', '--source-file', runtime.probe, ...extra]);
    const gated = (rt: RuntimeProcess, path: string, gate: string, init?: RequestInit) => fetch(`${rt.url}${path}?file=${encodeURIComponent(gate)}`, init);

    it('containerConcurrency 1: five parallel clients never overlap in the handler', { timeout: 60_000 }, async () => {
      const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '60']);
      const results = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const res = await fetch(`${rt.url}/exclusive?ms=150`);
          return `${res.status} ${await res.text()}`;
        }),
      );
      expect(results).toEqual(Array(5).fill('200 alone'));
    });

    it('containerConcurrency 1: one running + 10 queued, the 12th gets 503 queue_full', { timeout: 90_000 }, async () => {
      const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '120']);
      const gate = join(workers.dir(), 'gate-queue');
      const held = Array.from({ length: 11 }, () => gated(rt, '/wait-file', gate).then(async (r) => `${r.status} ${await r.text()}`));
      await eventually(async () => {
        const s = await queueStats(rt);
        return s.current.inFlight === 1 && s.current.queued === 10;
      });
      const refused = await fetch(`${rt.url}/sleep?ms=1`);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ error: 'worker queue is full (1 running, 10 waiting); retry later or scale out', code: 'queue_full' });
      await writeFile(gate, '');
      expect(await Promise.all(held)).toEqual(Array(11).fill('200 released'));
      expect(await queueStats(rt)).toMatchObject({ current: { inFlight: 0, queued: 0 } });
    });

    it('timeoutSeconds 2: 0.5 s → 200, 2.5 s and 3 s before the head → 504 timeout (connection closed), head at once then 3 s → 200', { timeout: 60_000 }, async () => {
      const rt = await worker(['--timeout-seconds', '2', '--container-concurrency', '4']);
      const [quick, slow, streamed, lessSlow] = await Promise.all([
        fetch(`${rt.url}/sleep?ms=500`),
        fetch(`${rt.url}/sleep?ms=3000`),
        fetch(`${rt.url}/first-byte-then?ms=3000`),
        fetch(`${rt.url}/sleep?ms=2500`),
      ]);
      expect([quick.status, await quick.text()]).toEqual([200, 'slept 500']);
      expect(slow.status).toBe(504);
      expect(slow.headers.get('connection')).toBe('close');
      expect(await slow.json()).toEqual({ error: "no response within the function's timeout (2 s)", code: 'timeout' });
      expect([streamed.status, await streamed.text()]).toEqual([200, 'first\nlast\n']);
      expect(lessSlow.status).toBe(504);
    });

    it('the timeout counts time spent queued; a handler that ignores it keeps its slot until it returns', { timeout: 60_000 }, async () => {
      const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '2']);
      const gate = join(workers.dir(), 'gate-timeout');
      const first = gated(rt, runtime.holdPath, gate);
      await eventually(async () => (await queueStats(rt)).current.inFlight === 1);
      expect((await fetch(`${rt.url}/sleep?ms=1`)).status).toBe(504); // it waited in the queue past 2 s
      expect((await first).status).toBe(504); // it waited for the gate past 2 s as well
      // The slot protects the process: it is free only once the handler returns.
      expect(await queueStats(rt)).toMatchObject({ current: { inFlight: 1 } });
      await writeFile(gate, '');
      await eventually(async () => (await queueStats(rt)).current.inFlight === 0);
      expect((await fetch(`${rt.url}/sleep?ms=1`)).status).toBe(200);
    });

    it('a client that goes away while queued frees its place', { timeout: 60_000 }, async () => {
      const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '120']);
      const gate = join(workers.dir(), 'gate-gone');
      const running = gated(rt, runtime.holdPath, gate).then((r) => r.text());
      await eventually(async () => (await queueStats(rt)).current.inFlight === 1);
      const queued = new AbortController();
      const waiting = fetch(`${rt.url}/sleep?ms=1`, { signal: queued.signal }).catch((e: Error) => e.name);
      await eventually(async () => (await queueStats(rt)).current.queued === 1);
      queued.abort();
      expect(await waiting).toBe('AbortError');
      await eventually(async () => (await queueStats(rt)).current.queued === 0);
      await writeFile(gate, '');
      expect(await running).toBe('released');
      await eventually(async () => (await queueStats(rt)).current.inFlight === 0);
      expect(await (await fetch(`${rt.url}/sleep?ms=1`)).text()).toBe('slept 1');
    });

    it('refuses a body over --max-request-bytes with 413 payload_too_large, declared or chunked', { timeout: 60_000 }, async () => {
      const rt = await worker(['--max-request-bytes', '1000']);
      const res = await fetch(`${rt.url}/echo`, { method: 'POST', body: 'z'.repeat(5000) });
      expect([res.status, await res.json()]).toEqual([413, { error: 'request body of 5000 bytes exceeds the 1000-byte limit', code: 'payload_too_large' }]);
      expect(await (await fetch(`${rt.url}/echo`, { method: 'POST', body: 'z'.repeat(500) })).text()).toBe('z'.repeat(500));
      // Without a Content-Length the cap applies while the handler reads.
      const chunked = (n: number) =>
        new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < n; i++) c.enqueue(new Uint8Array(500).fill(122));
            c.close();
          },
        });
      const streamed = await fetch(`${rt.url}/length`, { method: 'POST', body: chunked(10), duplex: 'half' } as RequestInit);
      expect([streamed.status, ((await streamed.json()) as { code: string }).code]).toEqual([413, 'payload_too_large']);
      expect(await (await fetch(`${rt.url}/length`, { method: 'POST', body: chunked(1), duplex: 'half' } as RequestInit)).text()).toBe('500');
      // The client is still sending when the 413 goes out: the worker must not reset the
      // connection under it (a RST overtook the answer about once in 16 before the linger).
      const refusals = [];
      for (let i = 0; i < 40; i++) {
        const declared = await fetch(`${rt.url}/echo`, { method: 'POST', body: 'z'.repeat(5000) });
        const chunkedBody = await fetch(`${rt.url}/length`, { method: 'POST', body: chunked(10), duplex: 'half' } as RequestInit);
        refusals.push(`${declared.status} ${((await declared.json()) as { code: string }).code}`, `${chunkedBody.status} ${((await chunkedBody.json()) as { code: string }).code}`);
      }
      expect(refusals).toEqual(Array(80).fill('413 payload_too_large'));
    });

    it('SIGTERM: readyz turns 503 draining, new connections are refused, the in-flight request finishes, exit 0', { timeout: 60_000 }, async () => {
      const rt = await worker(['--admin-port', '0', '--drain-timeout-seconds', '30']);
      const gate = join(workers.dir(), 'gate-drain');
      const inFlight = gated(rt, '/wait-file', gate).then(async (r) => `${r.status} ${await r.text()}`);
      await eventually(async () => (await queueStats(rt, rt.adminUrl)).current.inFlight === 1);
      rt.kill('SIGTERM');
      await eventually(async () => (await fetch(`${rt.adminUrl}/readyz`)).status === 503);
      expect(await (await fetch(`${rt.adminUrl}/readyz`)).json()).toEqual({ status: 'draining' });
      await expect(fetch(`${rt.url}/sleep?ms=1`, { headers: { connection: 'close' } })).rejects.toThrow();
      expect(rt.proc.exitCode).toBeNull();
      await writeFile(gate, '');
      expect(await inFlight).toBe('200 released');
      expect(await rt.exited).toBe(0);
      expect(rt.stderr()).toContain('drained; exiting');
    });

    it('SIGTERM: a request the router cannot send elsewhere runs while draining, any other is refused draining, and answers during the drain close their connection', { timeout: 60_000 }, async () => {
      const rt = await worker(['--admin-port', '0', '--drain-timeout-seconds', '30']);
      const gate = join(workers.dir(), 'gate-drain-resend');
      const port = Number(new URL(rt.url).port);
      // Byte-level clients (fetch hides the Connection header and requests on a reused connection).
      const [holding, told, untold] = await Promise.all([ResponseReader.open(port), ResponseReader.open(port), ResponseReader.open(port)]);
      // Holds the drain open; its answer's head is written after the drain began.
      holding.write(`GET /wait-file?file=${encodeURIComponent(gate)} HTTP/1.1\r\nhost: worker\r\n\r\n`);
      // Two connections whose streamed answers said keep-alive before the drain: the next request
      // on each reaches a draining worker (as one sent by the router on a reused connection does).
      for (const c of [told, untold]) c.write('GET /first-byte-then?ms=1500 HTTP/1.1\r\nhost: worker\r\n\r\n');
      await Promise.all([once(told.socket, 'data'), once(untold.socket, 'data')]);
      await eventually(async () => (await queueStats(rt, rt.adminUrl)).current.inFlight === 3);
      rt.kill('SIGTERM');
      await eventually(async () => (await fetch(`${rt.adminUrl}/readyz`)).status === 503);
      told.write('POST /echo HTTP/1.1\r\nhost: worker\r\norrery-router-cannot-resend: 1\r\ncontent-length: 7\r\n\r\npayload');
      untold.write('POST /echo HTTP/1.1\r\nhost: worker\r\ncontent-length: 7\r\n\r\npayload');
      const summary = (r: ReadResult) => (typeof r === 'string' ? r : { status: r.status, closes: header(r, 'connection')?.toLowerCase() === 'close', draining: header(r, 'orrery-worker-draining'), body: r.body.toString() });
      const streamed = { status: 200, closes: false, draining: undefined, body: 'first\nlast\n' };
      expect(summary(await told.next({ timeoutMs: 10_000 }))).toEqual(streamed);
      expect(summary(await told.next({ timeoutMs: 10_000 }))).toEqual({ status: 201, closes: true, draining: undefined, body: 'payload' });
      expect(await told.waitClosed()).toBe(true);
      expect(summary(await untold.next({ timeoutMs: 10_000 }))).toEqual(streamed);
      const refused = await untold.next({ timeoutMs: 10_000 });
      expect(summary(refused)).toMatchObject({ status: 503, closes: true, draining: '1' });
      expect(typeof refused !== 'string' && JSON.parse(refused.body.toString())).toMatchObject({ code: 'draining' });
      expect(await untold.waitClosed()).toBe(true);
      expect(rt.proc.exitCode).toBeNull();
      await writeFile(gate, '');
      expect(summary(await holding.next({ timeoutMs: 10_000 }))).toMatchObject({ status: 200, closes: true, body: 'released' });
      expect(await rt.exited).toBe(0);
    });

    it('its parent gone (--exit-with-parent; a killed local operator): drains as on SIGTERM, the in-flight request finishes, the worker exits', { timeout: 60_000 }, async () => {
      const { parent, workerPid } = await startUnderParent(runtime.launch, ['--function', 'probe', '--revision', 'probe-00001', '--source-file', runtime.probe, '--admin-port', '0', '--drain-timeout-seconds', '30']);
      try {
        const gate = join(workers.dir(), 'gate-parent-gone');
        const inFlight = gated(parent, '/wait-file', gate).then(async (r) => `${r.status} ${await r.text()}`);
        await eventually(async () => (await queueStats(parent, parent.adminUrl)).current.inFlight === 1);
        // While its parent lives, the worker serves on (a few of its checks pass).
        await new Promise((r) => setTimeout(r, 2_500));
        expect((await fetch(`${parent.adminUrl}/readyz`)).status).toBe(200);
        parent.kill('SIGKILL');
        await parent.exited;
        await eventually(async () => (await fetch(`${parent.adminUrl}/readyz`)).status === 503, 15_000);
        expect(pidAlive(workerPid)).toBe(true);
        await writeFile(gate, '');
        expect(await inFlight).toBe('200 released');
        await eventually(() => !pidAlive(workerPid), 15_000);
        expect(parent.stderr()).toContain('parent exited');
        expect(parent.stderr()).toContain('drained; exiting');
      } finally {
        if (pidAlive(workerPid)) process.kill(workerPid, 'SIGKILL');
        parent.kill('SIGKILL');
      }
    });

    it('SIGTERM: the drain timeout bounds a request that never finishes', { timeout: 60_000 }, async () => {
      const rt = await worker(['--drain-timeout-seconds', '1']);
      const never = gated(rt, '/wait-file', join(workers.dir(), 'never')).catch((e: Error) => e);
      await eventually(async () => (await queueStats(rt)).current.inFlight === 1);
      rt.kill('SIGTERM');
      expect(await rt.exited).toBe(0);
      expect(await never).toBeInstanceOf(Error);
      expect(rt.stderr()).toContain('drain timeout passed');
    });
  });
}
