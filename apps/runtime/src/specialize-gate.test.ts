import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mintSpecializeNonce, specializeVerifier } from '@orrery/auth';
import { readSpecializeVerifier, removeSpecializeVerifier, SpecializeGate } from './specialize-gate.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('SpecializeGate', () => {
  it('admits the right nonce once; a replay and any later call are refused (409 specialize_nonce_used)', () => {
    const nonce = mintSpecializeNonce();
    let consumed = 0;
    const gate = new SpecializeGate({ verifier: specializeVerifier(nonce), onConsumed: () => consumed++ });
    expect(gate.spent).toBe(false);
    expect(gate.admit(`Bearer ${nonce}`)).toBeUndefined();
    expect(consumed).toBe(1);
    expect(gate.spent).toBe(true);
    for (const again of [`Bearer ${nonce}`, 'Bearer other', undefined]) {
      expect(gate.admit(again)).toMatchObject({ status: 409, body: { code: 'specialize_nonce_used' } });
    }
    expect(consumed).toBe(1);
  });

  it('refuses wrong, malformed or missing credentials (401) without using the nonce up', () => {
    const nonce = mintSpecializeNonce();
    const v = specializeVerifier(nonce);
    const gate = new SpecializeGate({ verifier: v });
    for (const bad of [undefined, '', 'Bearer', 'Bearer ', `Bearer ${nonce}x`, `Bearer ${nonce.slice(1)}`, `Basic ${nonce}`, nonce, `Bearer ${v}`, 'Bearer a b']) {
      expect(gate.admit(bad), String(bad)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    }
    expect(gate.spent).toBe(false);
    expect(gate.admit(`bearer  ${nonce} `)).toBeUndefined();
  });

  it('without a verifier nobody gets in; a worker started spent refuses at once', () => {
    expect(new SpecializeGate({}).admit(`Bearer ${mintSpecializeNonce()}`)).toMatchObject({ status: 401, body: { error: expect.stringMatching(/no specialize verifier/) } });
    const spent = new SpecializeGate({ spent: true });
    expect(spent.spent).toBe(true);
    expect(spent.admit('Bearer x')).toMatchObject({ status: 409 });
  });
});

describe('readSpecializeVerifier', () => {
  it('reads the environment or the file; a missing file means spent; bad content is an error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-gate-'));
    dirs.push(dir);
    const v = specializeVerifier('n');
    expect(await readSpecializeVerifier({ env: ` ${v}\n` })).toEqual({ verifier: v, spent: false });
    await expect(readSpecializeVerifier({ env: 'not-hex' })).rejects.toThrow(/ORRERY_SPECIALIZE_VERIFIER must be/);
    expect(await readSpecializeVerifier({})).toEqual({ spent: false });
    await writeFile(join(dir, 'verifier'), `${v}\n`);
    expect(await readSpecializeVerifier({ file: join(dir, 'verifier') })).toEqual({ verifier: v, spent: false });
    expect(await readSpecializeVerifier({ file: join(dir, 'gone') })).toEqual({ spent: true });
    await writeFile(join(dir, 'bad'), 'the-pool-key');
    await expect(readSpecializeVerifier({ file: join(dir, 'bad') })).rejects.toThrow(/must hold 64 lowercase hex/);
    await removeSpecializeVerifier(join(dir, 'verifier'));
    await expect(stat(join(dir, 'verifier'))).rejects.toThrow(/ENOENT/);
    await removeSpecializeVerifier(join(dir, 'verifier')); // twice is fine
  });
});
