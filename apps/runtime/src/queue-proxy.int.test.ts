/**
 * The runtime contract's "queue-proxy" part (testing/runtime-contract-suite.ts), passed by the Node
 * runtime, and what only its handlers do: a Response streamed by a handler that the client leaves.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { nodeRuntime } from './testing/node-runtime.ts';
import { queueStats } from './testing/queue-proxy-contract.ts';
import { runtimeContractSuite } from './testing/runtime-contract-suite.ts';
import { eventually, PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

runtimeContractSuite(nodeRuntime, ['queue-proxy']);

describe('queue-proxy role of orrery-runtime: streamed answers (real process)', () => {
  let rt: RuntimeProcess | undefined;
  afterAll(async () => {
    await stopRuntime(rt);
  });

  it('a client that goes away mid-stream frees its slot', { timeout: 60_000 }, async () => {
    rt = await startRuntime(['--function', 'probe', '--revision', 'probe-00001', '--source-file', PROBE_FIXTURE, '--container-concurrency', '1', '--timeout-seconds', '120']);
    const streaming = new AbortController();
    const res = await fetch(`${rt.url}/first-byte-then?ms=100000`, { signal: streaming.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    expect(await queueStats(rt)).toMatchObject({ current: { inFlight: 1 } });
    streaming.abort();
    await eventually(async () => (await queueStats(rt!)).current.inFlight === 0);
    expect(await (await fetch(`${rt.url}/sleep?ms=1`)).text()).toBe('slept 1');
  });
});
