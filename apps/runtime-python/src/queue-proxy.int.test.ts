/**
 * The runtime contract's "queue-proxy" part (apps/runtime/src/testing/runtime-contract-suite.ts),
 * passed by the Python runtime, and what only Python handlers do: one that watches
 * request.cancelled lets its slot go at the timeout or when the client leaves, and an async
 * handler is cancelled at the timeout.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueStats } from '../../runtime/src/testing/queue-proxy-contract.ts';
import { runtimeContractSuite } from '../../runtime/src/testing/runtime-contract-suite.ts';
import { eventually } from '../../runtime/src/testing/runtime-process.ts';
import { runtimeWorkers } from '../../runtime/src/testing/runtime-workers.ts';
import { PYTHON_PROBE, startPythonRuntime } from './testing/python-runtime-process.ts';
import { pythonRuntime } from './testing/python-runtime.ts';

runtimeContractSuite(pythonRuntime, ['queue-proxy']);

describe('queue-proxy role of orrery-runtime-python: cancellation (real process)', () => {
  const workers = runtimeWorkers('orrery-runtime-python-qp-', startPythonRuntime);
  const worker = (extra: string[]) => workers.start(['--function', 'probe', '--revision', 'probe-00001', '--source-file', PYTHON_PROBE, ...extra]);

  it('a handler that watches request.cancelled lets its slot go at the timeout; an async handler is cancelled', { timeout: 30_000 }, async () => {
    const q = await worker(['--container-concurrency', '1', '--timeout-seconds', '2']);
    // Its gate is never opened.
    expect((await fetch(`${q.url}/wait-file?file=${encodeURIComponent(join(workers.dir(), 'never-opened'))}`)).status).toBe(504);
    await eventually(async () => (await queueStats(q)).current.inFlight === 0, 2000);

    const a = await worker(['--timeout-seconds', '1', '--entrypoint', 'slow_async']);
    expect((await fetch(`${a.url}/?ms=5000`)).status).toBe(504);
    await eventually(() => a.stderr().includes('async handler cancelled'));
    expect(await (await fetch(`${a.url}/?ms=1`)).text()).toBe('async slept');
  });

  it('a client that goes away while its handler runs frees the slot', { timeout: 30_000 }, async () => {
    const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '120']);
    const running = new AbortController();
    const inHandler = fetch(`${rt.url}/wait-file?file=${encodeURIComponent(join(workers.dir(), 'gate-gone'))}`, { signal: running.signal }).catch((e: Error) => e.name);
    await eventually(async () => (await queueStats(rt)).current.inFlight === 1);
    running.abort();
    expect(await inHandler).toBe('AbortError');
    await eventually(async () => (await queueStats(rt)).current.inFlight === 0);
    expect(await (await fetch(`${rt.url}/sleep?ms=1`)).text()).toBe('slept 1');
  });
});
