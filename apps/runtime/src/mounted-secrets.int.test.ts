import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStateTokenFile } from './state-token-file.ts';
import { PROBE_FIXTURE, RUNTIME_BIN, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

// Secrets the worker reads from files, as Kubernetes mounts them: the state token of a deploy
// worker and the specialize token of a pool worker (real processes).
let dir: string;
const workers: RuntimeProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-secrets-'));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => stopRuntime(w)));
  await rm(dir, { recursive: true, force: true });
});

/** Runs the runtime to its exit (for configurations it must refuse). */
function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, [RUNTIME_BIN, '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ORRERY_STATE_TOKEN: '' } });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, stderr })));
}

const stateful = (revision: string, tokenFile: string) => [
  '--namespace', 'shop', '--function', 'counter', '--revision', revision, '--source-file', PROBE_FIXTURE,
  '--work-dir', join(dir, revision), '--state-url', 'http://127.0.0.1:9', '--state-keyspace', 'counts', '--state-token-file', tokenFile,
];

describe('--state-token-file (deploy mode)', () => {
  it('starts from the mounted JSON file and hands the token to the function as its own token file', { timeout: 60_000 }, async () => {
    const mounted = await writeStateTokenFile(join(dir, 'mount'), { namespace: 'shop', keyspace: 'counts', token: 'file-token-1' });
    const w = await startRuntime(stateful('counter-00001', mounted));
    workers.push(w);
    const env = (await (await fetch(`${w.url}/env`)).json()) as { env: Record<string, string | null>; ctx: { hasState: boolean } };
    expect(env.ctx.hasState).toBe(true);
    expect(env.env.ORRERY_STATE_TOKEN).toBeNull();
    const { readFile } = await import('node:fs/promises');
    expect(JSON.parse(await readFile(env.env.ORRERY_STATE_TOKEN_PATH!, 'utf8'))).toEqual({ namespace: 'shop', keyspace: 'counts', token: 'file-token-1' });
    expect(w.stderr() + w.stdout()).not.toContain('file-token-1');
  });

  it('refuses to start on a missing file or a token for another keyspace (exit 2, clear message)', { timeout: 60_000 }, async () => {
    const missing = await runToExit(stateful('counter-00002', join(dir, 'nope')));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/state token file .*nope does not exist/);
    const other = await writeStateTokenFile(join(dir, 'other'), { namespace: 'shop', keyspace: 'elsewhere', token: 't' });
    const mismatch = await runToExit(stateful('counter-00003', other));
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/is for keyspace "elsewhere" but --state-keyspace is "counts"/);
  });
});

describe('--specialize-token-file (pool mode)', () => {
  it('answers 401 unauthorized without the bearer token or with a wrong one, specializes with it', { timeout: 60_000 }, async () => {
    await writeFile(join(dir, 'specialize-token'), 'pool-specialize-secret\n');
    const w = await startRuntime(['--mode', 'pool', '--work-dir', join(dir, 'pool'), '--specialize-token-file', join(dir, 'specialize-token')]);
    workers.push(w);
    const body = JSON.stringify({ namespace: 'shop', function: 'f', revision: 'f-00001', source: { inline: 'export default () => new Response("hi")' } });
    const post = (authorization?: string) =>
      fetch(`${w.url}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body });
    for (const auth of [undefined, 'Bearer wrong', 'Bearer pool-specialize-secretx', 'pool-specialize-secret']) {
      const res = await post(auth);
      expect(res.status, String(auth)).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    }
    // Still generic after the refused attempts.
    expect(await (await fetch(`${w.url}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
    const ok = await post('Bearer pool-specialize-secret');
    expect(ok.status).toBe(200);
    expect(await (await fetch(`${w.url}/`)).text()).toBe('hi');
  });

  it('refuses to start when the token file is missing', { timeout: 60_000 }, async () => {
    const r = await runToExit(['--mode', 'pool', '--work-dir', join(dir, 'pool2'), '--specialize-token-file', join(dir, 'absent')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/specialize token file .*absent does not exist/);
  });
});
