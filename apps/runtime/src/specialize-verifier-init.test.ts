import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveSpecializeNonce, nonceMatchesVerifier } from '@orrery/auth';
import { parseVerifierInitArgs, writeSpecializeVerifierFile } from './specialize-verifier-init.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('write-specialize-verifier (the pool pod init container)', () => {
  it('takes flags or the downward-API environment, and names what is missing', () => {
    expect(parseVerifierInitArgs(['--pool-key-file', '/k', '--out', '/o'], { POD_NAMESPACE: 'shop', POD_UID: 'u1' })).toEqual({ poolKeyFile: '/k', namespace: 'shop', podUid: 'u1', out: '/o' });
    expect(parseVerifierInitArgs(['--pool-key-file', '/k', '--out', '/o', '--namespace', 'a', '--pod-uid', 'b'], { POD_NAMESPACE: 'shop', POD_UID: 'u1' })).toMatchObject({ namespace: 'a', podUid: 'b' });
    expect(() => parseVerifierInitArgs([], {})).toThrow(/--pool-key-file, --namespace \(or POD_NAMESPACE\), --pod-uid \(or POD_UID\), --out/);
    expect(() => parseVerifierInitArgs(['--nope'], {})).toThrow(/nope/);
  });

  it('writes the SHA-256 of the pod nonce (never the key or the nonce), mode 0444', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-verifier-'));
    dirs.push(dir);
    await writeFile(join(dir, 'key'), 'the-pool-key\n');
    const out = join(dir, 'v', 'verifier');
    await writeSpecializeVerifierFile({ poolKeyFile: join(dir, 'key'), namespace: 'shop', podUid: 'uid-7', out });
    const text = (await readFile(out, 'utf8')).trim();
    const nonce = deriveSpecializeNonce('the-pool-key', 'shop', 'uid-7');
    expect(nonceMatchesVerifier(nonce, text)).toBe(true);
    expect(text).not.toContain(nonce);
    expect(text).not.toContain('the-pool-key');
    expect((await stat(out)).mode & 0o777).toBe(0o444);
  });

  it('explains a missing or empty key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orrery-verifier-'));
    dirs.push(dir);
    await expect(writeSpecializeVerifierFile({ poolKeyFile: join(dir, 'absent'), namespace: 'n', podUid: 'u', out: join(dir, 'o') })).rejects.toThrow(/specialize Secret mounted/);
    await writeFile(join(dir, 'empty'), '\n');
    await expect(writeSpecializeVerifierFile({ poolKeyFile: join(dir, 'empty'), namespace: 'n', podUid: 'u', out: join(dir, 'o') })).rejects.toThrow(/empty/);
  });
});
