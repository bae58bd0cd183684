/**
 * Issue 20 item 2 on real `orrery-runtime` processes: a pool worker is specialized once, by the
 * holder of its own nonce. Before, a generic worker started without a token accepted any caller,
 * the one shared pool token stayed readable by function code, and a second specialize for the same
 * function was answered as if it were the first — so a tenant could pre-specialize warm workers.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSpecializeNonce, mintSpecializeNonce, specializeVerifier } from '@orrery/auth';
import { writeSpecializeVerifierFile } from './specialize-verifier-init.ts';
import { startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const THIEF = fileURLToPath(new URL('../fixtures/specialize-thief.mjs', import.meta.url));
const workers: RuntimeProcess[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-nonce-sec-'));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => stopRuntime(w)));
  await rm(dir, { recursive: true, force: true });
});

async function poolWorker(name: string, how: 'env' | 'file'): Promise<{ w: RuntimeProcess; nonce: string; verifierFile?: string }> {
  if (how === 'env') {
    const nonce = mintSpecializeNonce();
    const w = await startRuntime(['--mode', 'pool', '--work-dir', join(dir, name)], { ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(nonce) });
    workers.push(w);
    return { w, nonce };
  }
  const { writeFile } = await import('node:fs/promises');
  const key = join(dir, `${name}.key`);
  await writeFile(key, 'pool-key-of-the-environment');
  const verifierFile = join(dir, `${name}-specialize`, 'verifier');
  await writeSpecializeVerifierFile({ poolKeyFile: key, namespace: 'shop', podUid: `uid-${name}`, out: verifierFile });
  const w = await startRuntime(['--mode', 'pool', '--work-dir', join(dir, name), '--specialize-verifier-file', verifierFile]);
  workers.push(w);
  return { w, nonce: deriveSpecializeNonce('pool-key-of-the-environment', 'shop', `uid-${name}`), verifierFile };
}

const specialize = (w: RuntimeProcess, nonce: string | undefined, fn: string, inline: string) =>
  fetch(`${w.url}/v1/specialize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(nonce ? { authorization: `Bearer ${nonce}` } : {}) },
    body: JSON.stringify({ namespace: 'shop', function: fn, revision: `${fn}-00001`, source: { inline } }),
  });

describe('single-use specialize nonces (real processes)', () => {
  it('function code in a specialized worker cannot specialize another warm worker with anything it can read', { timeout: 90_000 }, async () => {
    const a = await poolWorker('a', 'file');
    const b = await poolWorker('b', 'env');
    const c = await poolWorker('c', 'file');
    const thief = await readFile(THIEF, 'utf8');
    expect((await specialize(a.w, a.nonce, 'tenant', thief)).status).toBe(200);
    // A's own verifier file is gone once its nonce was used.
    await expect(stat(a.verifierFile!)).rejects.toThrow(/ENOENT/);
    const targets = [b.w.url, c.w.url].map((u) => new URL(u).host).join(',');
    const report = (await (await fetch(`${a.w.url}/?namespace=shop&targets=${targets}&look=${dir}`)).json()) as { attempts: number; accepted: unknown[]; statuses: Record<string, number>; findings: string[] };
    expect(report.attempts).toBeGreaterThan(2);
    expect(report.accepted).toEqual([]);
    expect(Object.keys(report.statuses)).toEqual(['401']);
    expect(report.findings).not.toContain('env:ORRERY_SPECIALIZE_VERIFIER');
    for (const t of [b, c]) expect(await (await fetch(`${t.w.url}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
  });

  it('a replay of a used nonce, and a second specialize for another function, are refused', { timeout: 60_000 }, async () => {
    for (const how of ['env', 'file'] as const) {
      const { w, nonce } = await poolWorker(`replay-${how}`, how);
      const code = 'export default () => new Response("mine")';
      expect((await specialize(w, nonce, 'victim', code)).status).toBe(200);
      for (const [fn, inline] of [['victim', code], ['other', 'export default () => new Response("hijacked")']] as const) {
        const again = await specialize(w, nonce, fn, inline);
        expect(again.status, `${how}: ${fn}`).toBe(409);
        expect(await again.json()).toMatchObject({ code: 'specialize_nonce_used' });
      }
      expect(await (await fetch(`${w.url}/`)).text()).toBe('mine');
    }
  });

  it('a worker started without a verifier can be specialized by nobody', { timeout: 60_000 }, async () => {
    const w = await startRuntime(['--mode', 'pool', '--work-dir', join(dir, 'open')]);
    workers.push(w);
    for (const nonce of [undefined, mintSpecializeNonce()]) expect((await specialize(w, nonce, 'victim', 'export default () => new Response("x")')).status).toBe(401);
    expect(w.stderr()).toMatch(/refuses every specialize call/);
  });
});
