/**
 * The runtime contract's "real-statesvc" part (apps/runtime/src/testing/runtime-contract-suite.ts),
 * passed by the Python runtime with ctx.state the Python SDK (sdk/python/orrery_state.py), and what
 * only it covers: examples/python/counter counts and streams its changes, and a rotated mounted token
 * reaches ctx.state without a restart (the runtime rewrites its token file; the SDK re-reads it after a 401).
 */
import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveStateToken } from '@orrery/auth';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { STATESVC_BIN, statesvcForBlock } from '../../runtime/src/testing/real-statesvc.ts';
import { runtimeContractSuite } from '../../runtime/src/testing/runtime-contract-suite.ts';
import { eventually } from '../../runtime/src/testing/runtime-process.ts';
import { runtimeWorkers } from '../../runtime/src/testing/runtime-workers.ts';
import { countOn } from '../../runtime/src/testing/state-contract.ts';
import { PYTHON_PROBE, startPythonRuntime } from './testing/python-runtime-process.ts';
import { pythonRuntime } from './testing/python-runtime.ts';

runtimeContractSuite(pythonRuntime, ['real-statesvc']);

const MASTER = Buffer.alloc(32, 0x5b);
const COUNTER_EXAMPLE = fileURLToPath(new URL('../../../examples/python/counter/function.yaml', import.meta.url));
const token = (keyspace: string) => deriveStateToken(MASTER, 'shop', keyspace);

describe.skipIf(!existsSync(STATESVC_BIN))('orrery-runtime-python against the real orrery-statesvc: the Python example and token rotation', () => {
  const workers = runtimeWorkers('orrery-runtime-python-state-', startPythonRuntime);
  const statesvc = statesvcForBlock(workers.dir, MASTER, [['shop', 'counts'], ['shop', 'counter-py']]);

  const worker = (revision: string, args: string[], env: Record<string, string> = {}) =>
    workers.start(['--function', 'counter', '--revision', revision, '--namespace', 'shop', '--work-dir', join(workers.dir(), revision), '--state-url', statesvc().url, ...args], env);

  it('examples/python/counter: POST increments with update(), GET reads, ?watch streams the change feed, DELETE resets', { timeout: 20_000 }, async () => {
    const doc = parse(readFileSync(COUNTER_EXAMPLE, 'utf8')) as { spec: { template: { source: { inline: string } } } };
    const w = await worker('counter-py-00001', ['--source-inline', doc.spec.template.source.inline, '--state-keyspace', 'counter-py'], { ORRERY_STATE_TOKEN: token('counter-py') });
    const post = async () => (await (await fetch(`${w.url}/?key=hits`, { method: 'POST' })).json()) as { key: string; count: number; version: number };
    expect(await post()).toMatchObject({ key: 'hits', count: 1 });
    const many = await Promise.all(Array.from({ length: 5 }, post));
    expect(many.map((r) => r.count).sort()).toEqual([2, 3, 4, 5, 6]);
    expect(await (await fetch(`${w.url}/?key=hits`)).json()).toMatchObject({ key: 'hits', count: 6 });

    const stop = new AbortController();
    const watch = await fetch(`${w.url}/?key=hits&watch`, { signal: stop.signal });
    expect(watch.headers.get('content-type')).toBe('text/event-stream');
    const reader = watch.body!.getReader();
    let pending = reader.read();
    let streamed = '';
    for (let i = 0; i < 20 && !streamed.includes('\n\n'); i++) {
      await post();
      const next = await Promise.race([pending, new Promise<undefined>((r) => setTimeout(r, 500))]);
      if (next === undefined) continue;
      streamed += new TextDecoder().decode(next.value);
      pending = reader.read();
    }
    stop.abort();
    pending.catch(() => undefined);
    expect(JSON.parse(streamed.split('\n\n')[0]!.replace(/^data: /, ''))).toMatchObject({ key: 'hits', op: 'set', count: expect.any(Number) });
    // The client left: the stream's slot is let go.
    await eventually(async () => ((await (await fetch(`${w.url}/v1/stats`)).json()) as { current: { inFlight: number } }).current.inFlight === 0);

    expect(await (await fetch(`${w.url}/?key=hits`, { method: 'DELETE' })).json()).toEqual({ key: 'hits', count: 0 });
    expect(await (await fetch(`${w.url}/?key=hits`)).json()).toEqual({ key: 'hits', count: 0, version: 0 });
  });

  it('a rotated token in the mounted file (--state-token-file) reaches ctx.state without a restart', { timeout: 20_000 }, async () => {
    const mounted = join(workers.dir(), 'mounted-token');
    // The Secret holds a token of an old master key, which statesvc no longer accepts (401).
    await writeFile(mounted, JSON.stringify({ namespace: 'shop', keyspace: 'counts', token: deriveStateToken(Buffer.alloc(32, 0x01), 'shop', 'counts') }));
    const w = await worker('counter-00020', ['--source-file', PYTHON_PROBE, '--state-keyspace', 'counts', '--state-token-file', mounted]);
    expect(await countOn(w, 'rotated')).toBe('500 handler_error');
    expect(w.stderr()).toMatch(/StateError/);
    // The kubelet swaps the file's content when the Secret changes.
    await writeFile(`${mounted}.new`, JSON.stringify({ namespace: 'shop', keyspace: 'counts', token: token('counts') }));
    await rename(`${mounted}.new`, mounted);
    await eventually(() => w.stderr().includes('state token changed in the mounted file'), 10_000);
    expect(await countOn(w, 'rotated')).toBe('200 1');
    expect(w.stderr()).not.toContain(token('counts'));
  });
});
