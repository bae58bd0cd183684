import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSpecializeNonce } from '@orrery/auth';
import { writeSpecializeVerifierFile } from './specialize-verifier-init.ts';
import { writeStateTokenFile } from './state-token-file.ts';
import { PROBE_FIXTURE, RUNTIME_BIN, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

// Secrets the worker reads from files, as Kubernetes mounts them: the state token of a deploy
// worker and the specialize verifier of a pool worker (real processes).
let dir: string;
const workers: RuntimeProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-secrets-'));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => stopRuntime(w)));
  await rm(dir, { recursive: true, force: true });
});

async function keyFile(key: string): Promise<string> {
  const path = join(dir, `key-${key}`);
  await writeFile(path, `${key}\n`);
  return path;
}

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

describe('--specialize-verifier-file (pool mode, as the pool pod init container writes it)', () => {
  it('answers 401 without the nonce or with a wrong one, specializes once with it, then removes the file', { timeout: 60_000 }, async () => {
    const nonce = deriveSpecializeNonce('pool-key', 'shop', 'pod-uid-1');
    const file = join(dir, 'specialize', 'verifier');
    await writeSpecializeVerifierFile({ poolKeyFile: await keyFile('pool-key'), namespace: 'shop', podUid: 'pod-uid-1', out: file });
    const w = await startRuntime(['--mode', 'pool', '--work-dir', join(dir, 'pool'), '--specialize-verifier-file', file]);
    workers.push(w);
    const body = JSON.stringify({ namespace: 'shop', function: 'f', revision: 'f-00001', source: { inline: 'export default () => new Response("hi")' } });
    const post = (authorization?: string) =>
      fetch(`${w.url}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body });
    const verifier = (await readFile(file, 'utf8')).trim();
    for (const auth of [undefined, 'Bearer wrong', `Bearer ${nonce}x`, nonce, `Bearer ${verifier}`, 'Bearer pool-key']) {
      const res = await post(auth);
      expect(res.status, String(auth)).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    }
    // Still generic after the refused attempts.
    expect(await (await fetch(`${w.url}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
    const ok = await post(`Bearer ${nonce}`);
    expect(ok.status).toBe(200);
    expect(await (await fetch(`${w.url}/`)).text()).toBe('hi');
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it('a worker whose verifier file is gone (restarted after its specialize) starts spent: not ready, refuses', { timeout: 60_000 }, async () => {
    const w = await startRuntime(['--mode', 'pool', '--work-dir', join(dir, 'pool2'), '--specialize-verifier-file', join(dir, 'absent')]);
    workers.push(w);
    const ready = await fetch(`${w.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'spent' });
    const res = await fetch(`${w.url}/v1/specialize`, { method: 'POST', headers: { authorization: 'Bearer x' }, body: '{}' });
    expect(res.status).toBe(409);
  });

  it('refuses to start on a file that is not a verifier (the pool key itself, say)', { timeout: 60_000 }, async () => {
    const r = await runToExit(['--mode', 'pool', '--work-dir', join(dir, 'pool3'), '--specialize-verifier-file', await keyFile('pool-key')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/must hold 64 lowercase hex digits/);
  });
});
