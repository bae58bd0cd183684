/**
 * The runtime contract's "serve" part (apps/runtime/src/testing/runtime-contract-suite.ts), passed
 * by the Python runtime in deploy mode, and what only Python handlers do: answer with a tuple, read
 * ctx.trace, and show their own frames in a traceback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeContractSuite } from '../../runtime/src/testing/runtime-contract-suite.ts';
import { stopRuntime, type RuntimeProcess } from '../../runtime/src/testing/runtime-process.ts';
import { PYTHON_PROBE, startPythonRuntime } from './testing/python-runtime-process.ts';
import { pythonRuntime } from './testing/python-runtime.ts';

runtimeContractSuite(pythonRuntime, ['serve']);

describe('orrery-runtime-python: Python handlers (real process)', () => {
  let rt: RuntimeProcess;
  beforeAll(async () => {
    rt = await startPythonRuntime(['--function', 'probe', '--revision', 'probe-00001', '--namespace', 'team-a', '--source-file', PYTHON_PROBE]);
  }, 30_000);
  afterAll(async () => {
    await stopRuntime(rt);
  });

  it('a (body, status, headers) tuple is an answer; ctx.trace carries the request\'s traceparent', async () => {
    const env = (await (await fetch(`${rt.url}/env`, { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } })).json()) as Record<string, unknown>;
    expect(env.trace).toEqual({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: null });
    const tuple = await fetch(`${rt.url}/tuple`);
    expect([tuple.status, tuple.headers.get('x-kind'), await tuple.json()]).toEqual([201, 'tuple', { created: true }]);
  });

  it('the traceback of a raising handler shows the function\'s frames, not the runtime\'s thread pool', async () => {
    expect((await fetch(`${rt.url}/throw`)).status).toBe(500);
    expect(rt.stderr()).toContain('boom from the function');
    expect(rt.stderr()).toContain('probe.py');
    expect(rt.stderr()).not.toContain('concurrent/futures');
  });
});
