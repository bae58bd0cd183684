import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const started: RuntimeProcess[] = [];
let dir: string;
const worker = async (extra: string[]) => {
  const rt = await startRuntime(['--function', 'probe', '--revision', 'probe-00001', '--source-file', PROBE_FIXTURE, ...extra]);
  started.push(rt);
  return rt;
};
const stats = async (rt: RuntimeProcess) => (await fetch(`${rt.url}/v1/stats`)).json();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-qp-'));
});
afterAll(async () => {
  await Promise.all(started.map((rt) => stopRuntime(rt)));
  await rm(dir, { recursive: true, force: true });
});

describe('queue-proxy role (real process)', () => {
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
    const gate = join(dir, 'gate-queue');
    const held = Array.from({ length: 11 }, () => fetch(`${rt.url}/wait-file?file=${encodeURIComponent(gate)}`).then(async (r) => `${r.status} ${await r.text()}`));
    await eventually(async () => {
      const s = await stats(rt);
      return s.current.inFlight === 1 && s.current.queued === 10;
    });
    const refused = await fetch(`${rt.url}/sleep?ms=1`);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'queue_full', error: expect.stringContaining('queue is full') });
    await writeFile(gate, '');
    expect(await Promise.all(held)).toEqual(Array(11).fill('200 released'));
    expect(await stats(rt)).toMatchObject({ current: { inFlight: 0, queued: 0 } });
  });

  it('timeoutSeconds 2: 0.5 s → 200, 3 s before the first byte → 504, first byte at once then 3 s → 200', { timeout: 60_000 }, async () => {
    const rt = await worker(['--timeout-seconds', '2']);
    const [quick, slow, streamed] = await Promise.all([
      fetch(`${rt.url}/sleep?ms=500`),
      fetch(`${rt.url}/sleep?ms=3000`),
      fetch(`${rt.url}/first-byte-then?ms=3000`),
    ]);
    expect(quick.status).toBe(200);
    expect(await quick.text()).toBe('slept 500');
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({ code: 'timeout' });
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toBe('first\nlast\n');
  });

  it('the timeout counts time spent queued', { timeout: 60_000 }, async () => {
    const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '2']);
    const gate = join(dir, 'gate-timeout');
    const first = fetch(`${rt.url}/wait-file?file=${encodeURIComponent(gate)}`);
    await eventually(async () => (await stats(rt)).current.inFlight === 1);
    const queued = await fetch(`${rt.url}/sleep?ms=1`);
    expect(queued.status).toBe(504);
    await writeFile(gate, '');
    expect((await first).status).toBe(504); // it waited for the gate past 2 s as well
    await eventually(async () => (await stats(rt)).current.inFlight === 0);
    expect((await fetch(`${rt.url}/sleep?ms=1`)).status).toBe(200);
  });

  it('a client that goes away frees its slot: mid-stream, or while queued', { timeout: 60_000 }, async () => {
    const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '120']);
    const streaming = new AbortController();
    const res = await fetch(`${rt.url}/first-byte-then?ms=100000`, { signal: streaming.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    const queued = new AbortController();
    const waiting = fetch(`${rt.url}/sleep?ms=1`, { signal: queued.signal }).catch((e: Error) => e.name);
    await eventually(async () => (await stats(rt)).current.queued === 1);
    queued.abort();
    expect(await waiting).toBe('AbortError');
    await eventually(async () => (await stats(rt)).current.queued === 0);
    streaming.abort();
    await eventually(async () => (await stats(rt)).current.inFlight === 0);
    expect(await (await fetch(`${rt.url}/sleep?ms=1`)).text()).toBe('slept 1');
  });

  it('rejects a body over --max-request-bytes with 413, declared or streamed', { timeout: 60_000 }, async () => {
    const rt = await worker(['--max-request-bytes', '1000']);
    const res = await fetch(`${rt.url}/echo`, { method: 'POST', body: 'z'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'payload_too_large' });
    const ok = await fetch(`${rt.url}/echo`, { method: 'POST', body: 'z'.repeat(500) });
    expect(await ok.text()).toBe('z'.repeat(500));
    // Without a Content-Length the cap applies while the handler reads.
    const chunked = (n: number) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < n; i++) c.enqueue(new Uint8Array(500).fill(122));
          c.close();
        },
      });
    const streamed = await fetch(`${rt.url}/length`, { method: 'POST', body: chunked(10), duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ code: 'payload_too_large' });
    const small = await fetch(`${rt.url}/length`, { method: 'POST', body: chunked(1), duplex: 'half' } as RequestInit);
    expect(await small.text()).toBe('500');
  });

  it('SIGTERM: readyz turns 503, new requests are refused, the in-flight request finishes, exit 0', { timeout: 60_000 }, async () => {
    const rt = await worker(['--admin-port', '0', '--drain-timeout-seconds', '30']);
    const gate = join(dir, 'gate-drain');
    const inFlight = fetch(`${rt.url}/wait-file?file=${encodeURIComponent(gate)}`).then(async (r) => `${r.status} ${await r.text()}`);
    await eventually(async () => (await fetch(`${rt.adminUrl}/v1/stats`).then((r) => r.json())).current.inFlight === 1);
    rt.kill('SIGTERM');
    await eventually(async () => (await fetch(`${rt.adminUrl}/readyz`)).status === 503);
    // New connections are no longer accepted.
    await expect(fetch(`${rt.url}/sleep?ms=1`, { headers: { connection: 'close' } })).rejects.toThrow();
    expect(rt.proc.exitCode).toBeNull();
    await writeFile(gate, '');
    expect(await inFlight).toBe('200 released');
    expect(await rt.exited).toBe(0);
    expect(rt.stderr()).toContain('drained; exiting');
  });

  it('SIGTERM: the drain timeout bounds a request that never finishes', { timeout: 60_000 }, async () => {
    const rt = await worker(['--drain-timeout-seconds', '1']);
    const never = fetch(`${rt.url}/wait-file?file=${encodeURIComponent(join(dir, 'never'))}`).catch((e: Error) => e);
    await eventually(async () => (await stats(rt)).current.inFlight === 1);
    rt.kill('SIGTERM');
    expect(await rt.exited).toBe(0);
    expect(await never).toBeInstanceOf(Error);
    expect(rt.stderr()).toContain('drain timeout passed');
  });
});
