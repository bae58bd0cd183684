/**
 * The queue-proxy role of the Python runtime, as a real process: containerConcurrency, its FIFO and
 * queue_full, the time-to-head timeout (queueing counted), a client that goes away, body caps and the
 * SIGTERM drain — each answered exactly as the Node runtime answers (queue-proxy.int.test.ts there).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PYTHON_PROBE, startPythonRuntime, stopPythonRuntime, type PythonRuntimeProcess } from './testing/python-runtime-process.ts';

const started: PythonRuntimeProcess[] = [];
let dir: string;
const worker = async (extra: string[]) => {
  const rt = await startPythonRuntime(['--function', 'probe', '--revision', 'probe-00001', '--source-file', PYTHON_PROBE, ...extra]);
  started.push(rt);
  return rt;
};
type Stats = { current: { inFlight: number; queued: number } };
const stats = async (rt: PythonRuntimeProcess, url = rt.url) => (await (await fetch(`${url}/v1/stats`)).json()) as Stats;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-python-qp-'));
});
afterAll(async () => {
  await Promise.all(started.map((rt) => stopPythonRuntime(rt)));
  await rm(dir, { recursive: true, force: true });
});

describe('queue-proxy role of the Python runtime (real process)', () => {
  it('containerConcurrency 1: five parallel clients never overlap; one running + 10 queued, the 12th gets 503 queue_full', { timeout: 30_000 }, async () => {
    const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '60']);
    const results = await Promise.all(Array.from({ length: 5 }, async () => `${(await fetch(`${rt.url}/exclusive?ms=100`)).status}`));
    expect(results).toEqual(Array(5).fill('200'));

    const gate = join(dir, 'gate-queue');
    const held = Array.from({ length: 11 }, () => fetch(`${rt.url}/wait-file?file=${encodeURIComponent(gate)}`).then(async (r) => `${r.status} ${await r.text()}`));
    await eventually(async () => {
      const s = await stats(rt);
      return s.current.inFlight === 1 && s.current.queued === 10;
    });
    const refused = await fetch(`${rt.url}/sleep?ms=1`);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: 'worker queue is full (1 running, 10 waiting); retry later or scale out', code: 'queue_full' });
    await writeFile(gate, '');
    expect(await Promise.all(held)).toEqual(Array(11).fill('200 released'));
    expect(await stats(rt)).toMatchObject({ current: { inFlight: 0, queued: 0 } });
  });

  it('timeoutSeconds 2: 0.5 s → 200, 3 s before the head → 504 timeout, head at once then 3 s → 200; queueing counts; an async handler is cancelled', { timeout: 30_000 }, async () => {
    const rt = await worker(['--timeout-seconds', '2', '--container-concurrency', '3']);
    const [quick, slow, streamed, asyncSlow] = await Promise.all([
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
    expect(asyncSlow.status).toBe(504);

    const q = await worker(['--container-concurrency', '1', '--timeout-seconds', '2']);
    const gate = join(dir, 'gate-timeout');
    const first = fetch(`${q.url}/hold-file?file=${encodeURIComponent(gate)}`);
    await eventually(async () => (await stats(q)).current.inFlight === 1);
    expect((await fetch(`${q.url}/sleep?ms=1`)).status).toBe(504); // it waited in the queue past 2 s
    expect((await first).status).toBe(504);
    // A handler that ignores the timeout keeps its slot until it returns (the slot protects the process).
    expect(await stats(q)).toMatchObject({ current: { inFlight: 1 } });
    await writeFile(gate, '');
    await eventually(async () => (await stats(q)).current.inFlight === 0);
    expect((await fetch(`${q.url}/sleep?ms=1`)).status).toBe(200);
    // One that watches request.cancelled lets it go at the timeout (its gate is never opened).
    expect((await fetch(`${q.url}/wait-file?file=${encodeURIComponent(join(dir, 'never-opened'))}`)).status).toBe(504);
    await eventually(async () => (await stats(q)).current.inFlight === 0, 2000);

    const a = await worker(['--timeout-seconds', '1', '--entrypoint', 'slow_async']);
    expect((await fetch(`${a.url}/?ms=5000`)).status).toBe(504);
    await eventually(() => a.stderr().includes('async handler cancelled'));
    expect(await (await fetch(`${a.url}/?ms=1`)).text()).toBe('async slept');
  });

  it('a client that goes away frees its slot, while queued or in the handler', { timeout: 30_000 }, async () => {
    const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '120']);
    const gate = join(dir, 'gate-gone');
    const running = new AbortController();
    const inHandler = fetch(`${rt.url}/wait-file?file=${encodeURIComponent(gate)}`, { signal: running.signal }).catch((e: Error) => e.name);
    await eventually(async () => (await stats(rt)).current.inFlight === 1);
    const queued = new AbortController();
    const waiting = fetch(`${rt.url}/sleep?ms=1`, { signal: queued.signal }).catch((e: Error) => e.name);
    await eventually(async () => (await stats(rt)).current.queued === 1);
    queued.abort();
    expect(await waiting).toBe('AbortError');
    await eventually(async () => (await stats(rt)).current.queued === 0);
    running.abort();
    expect(await inHandler).toBe('AbortError');
    await eventually(async () => (await stats(rt)).current.inFlight === 0);
    expect(await (await fetch(`${rt.url}/sleep?ms=1`)).text()).toBe('slept 1');
  });

  it('refuses a body over --max-request-bytes with 413 payload_too_large, declared or chunked', { timeout: 30_000 }, async () => {
    const rt = await worker(['--max-request-bytes', '1000']);
    const res = await fetch(`${rt.url}/echo`, { method: 'POST', body: 'z'.repeat(5000) });
    expect([res.status, await res.json()]).toEqual([413, { error: 'request body of 5000 bytes exceeds the 1000-byte limit', code: 'payload_too_large' }]);
    expect(await (await fetch(`${rt.url}/echo`, { method: 'POST', body: 'z'.repeat(500) })).text()).toBe('z'.repeat(500));
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
  });

  it('SIGTERM: readyz turns 503, new connections are refused, the in-flight request finishes, exit 0', { timeout: 30_000 }, async () => {
    const rt = await worker(['--admin-port', '0', '--drain-timeout-seconds', '30']);
    const gate = join(dir, 'gate-drain');
    const inFlight = fetch(`${rt.url}/wait-file?file=${encodeURIComponent(gate)}`).then(async (r) => `${r.status} ${await r.text()}`);
    await eventually(async () => (await stats(rt, rt.adminUrl)).current.inFlight === 1);
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

  it('SIGTERM: the drain timeout bounds a request that never finishes', { timeout: 30_000 }, async () => {
    const rt = await worker(['--drain-timeout-seconds', '1']);
    const never = fetch(`${rt.url}/wait-file?file=${encodeURIComponent(join(dir, 'never'))}`).catch((e: Error) => e);
    await eventually(async () => (await stats(rt)).current.inFlight === 1);
    rt.kill('SIGTERM');
    expect(await rt.exited).toBe(0);
    expect(await never).toBeInstanceOf(Error);
    expect(rt.stderr()).toContain('drain timeout passed');
  });
});
