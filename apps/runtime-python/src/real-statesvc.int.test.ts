/**
 * State through the real orrery-statesvc (apps/statesvc, a master key, the memory driver): the
 * Python runtime writes the token file 0444 and exports its path (never the token), ctx.state is
 * the Python SDK (sdk/python/orrery_state.py) over it, examples/python/counter counts and streams
 * its changes, fencing and the router's key-moved mark work, and a rotated mounted token reaches
 * ctx.state without a restart (the runtime rewrites its token file; the SDK re-reads it after a 401).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveStateToken } from '@orrery/auth';
import { STATESVC_BIN, spawnStatesvc, type StatesvcProcess } from '@orrery/statesvc/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { eventually, PYTHON_PROBE, startPythonRuntime, stopPythonRuntime, type PythonRuntimeProcess } from './testing/python-runtime-process.ts';

const MASTER = Buffer.alloc(32, 0x5b);
const COUNTER_EXAMPLE = fileURLToPath(new URL('../../../examples/python/counter/function.yaml', import.meta.url));

let dir: string;
let statesvc: StatesvcProcess | undefined;
const workers: PythonRuntimeProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-python-state-'));
  await writeFile(join(dir, 'master.key'), MASTER.toString('hex'));
  await writeFile(join(dir, 'keyspaces.yaml'), ['counts', 'other', 'counter-py'].map((ks) => `- {namespace: shop, keyspace: ${ks}}\n`).join(''));
  statesvc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
}, 60_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => stopPythonRuntime(w)));
  await statesvc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

const token = (keyspace: string) => deriveStateToken(MASTER, 'shop', keyspace);
const worker = async (revision: string, args: string[], env: Record<string, string> = {}) => {
  const w = await startPythonRuntime(['--function', 'counter', '--revision', revision, '--namespace', 'shop', '--work-dir', join(dir, revision), '--state-url', statesvc!.url, ...args], env);
  workers.push(w);
  return w;
};
const probe = (revision: string, keyspace: string, extra: string[] = [], tokenValue = token(keyspace)) =>
  worker(revision, ['--source-file', PYTHON_PROBE, '--state-keyspace', keyspace, ...extra], { ORRERY_STATE_TOKEN: tokenValue });
const count = async (w: PythonRuntimeProcess, key = 'visits', headers: Record<string, string> = {}) => {
  const res = await fetch(`${w.url}/count?key=${key}`, { headers });
  const body = (await res.json()) as { count?: number; code?: string };
  return `${res.status} ${res.status === 200 ? body.count : body.code}`;
};

describe.skipIf(!existsSync(STATESVC_BIN))('the Python runtime against the real orrery-statesvc', () => {
  it('writes the token file 0444, exports its path and URL (not the token), counts, and never logs the token', { timeout: 20_000 }, async () => {
    const w = await probe('counter-00007', 'counts');
    const tokenPath = join(dir, 'counter-00007', '.orrery-state-token');
    expect((await stat(tokenPath)).mode & 0o777).toBe(0o444);
    expect(JSON.parse(await readFile(tokenPath, 'utf8'))).toEqual({ namespace: 'shop', keyspace: 'counts', token: token('counts') });
    const env = (await (await fetch(`${w.url}/env`)).json()) as { env: Record<string, unknown>; ctx: Record<string, unknown> };
    expect(env.env).toMatchObject({ ORRERY_STATE_URL: statesvc!.url, ORRERY_STATE_TOKEN_PATH: tokenPath, ORRERY_STATE_TOKEN: null, ORRERY_REGISTRY_CREDENTIAL: null });
    expect(env.ctx).toEqual({ namespace: 'shop', function: 'counter', revision: 'counter-00007', hasState: true });
    expect(await count(w)).toBe('200 1');
    expect(await count(w)).toBe('200 2');
    // A token for another keyspace does not open this one: the SDK's StateError is the handler's error.
    const wrong = await probe('counter-00008', 'counts', [], token('other'));
    expect(await count(wrong)).toBe('500 handler_error');
    await stopPythonRuntime(w);
    expect(w.stderr()).toContain('state token file written');
    expect(w.stderr()).toMatch(/"source":"function".*"msg":"counted"/);
    expect(w.stderr() + w.stdout()).not.toContain(token('counts'));
    expect(wrong.stderr()).toMatch(/StateError/);
  });

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

  it('--state-fencing on: the last worker to claim a key writes it; the other is refused until the router says the key moved back', { timeout: 20_000 }, async () => {
    const a = await probe('counter-00010', 'counts', ['--state-fencing', 'on']);
    const b = await probe('counter-00011', 'counts', ['--state-fencing', 'on']);
    expect(await count(a, 'fenced')).toBe('200 1');
    expect(await count(b, 'fenced')).toBe('200 2');
    expect(await count(a, 'fenced')).toBe('500 handler_error');
    expect(a.stderr()).toMatch(/FencedError/);
    expect(await count(a, 'fenced', { 'x-orrery-key-moved': '1' })).toBe('200 3');
    expect(await count(b, 'fenced')).toBe('500 handler_error');
  });

  it('a rotated token in the mounted file (--state-token-file) reaches ctx.state without a restart', { timeout: 20_000 }, async () => {
    const mounted = join(dir, 'mounted-token');
    // The Secret holds a token of an old master key, which statesvc no longer accepts (401).
    await writeFile(mounted, JSON.stringify({ namespace: 'shop', keyspace: 'counts', token: deriveStateToken(Buffer.alloc(32, 0x01), 'shop', 'counts') }));
    const w = await worker('counter-00020', ['--source-file', PYTHON_PROBE, '--state-keyspace', 'counts', '--state-token-file', mounted]);
    expect(await count(w, 'rotated')).toBe('500 handler_error');
    expect(w.stderr()).toMatch(/StateError/);
    // The kubelet swaps the file's content when the Secret changes.
    await writeFile(`${mounted}.new`, JSON.stringify({ namespace: 'shop', keyspace: 'counts', token: token('counts') }));
    const { rename } = await import('node:fs/promises');
    await rename(`${mounted}.new`, mounted);
    await eventually(() => w.stderr().includes('state token changed in the mounted file'), 10_000);
    expect(await count(w, 'rotated')).toBe('200 1');
    expect(w.stderr()).not.toContain(token('counts'));
  });
});
