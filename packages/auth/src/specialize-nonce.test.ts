import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveSpecializeNonce, isSpecializeVerifier, mintSpecializeNonce, nonceMatchesVerifier, specializeNonceInfo, specializeVerifier } from './specialize-nonce.ts';

describe('specialize nonces', () => {
  it('mints distinct random nonces', () => {
    const seen = new Set(Array.from({ length: 200 }, () => mintSpecializeNonce()));
    expect(seen.size).toBe(200);
    for (const n of seen) expect(n).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('derives a pod nonce as HMAC-SHA256(pool key, v1:specialize:<ns>:<uid>) (known answer)', () => {
    const key = 'pool-key';
    const want = createHmac('sha256', key).update('v1:specialize:shop:0f6e1c2a-uid').digest('hex');
    expect(specializeNonceInfo('shop', '0f6e1c2a-uid')).toBe('v1:specialize:shop:0f6e1c2a-uid');
    expect(deriveSpecializeNonce(key, 'shop', '0f6e1c2a-uid')).toBe(want);
    expect(deriveSpecializeNonce(Buffer.from(key), 'shop', '0f6e1c2a-uid')).toBe(want);
  });

  it('a nonce names one pod of one namespace under one key', () => {
    const base = deriveSpecializeNonce('k', 'ns', 'uid-1');
    expect(deriveSpecializeNonce('k', 'ns', 'uid-2')).not.toBe(base);
    expect(deriveSpecializeNonce('k', 'ns2', 'uid-1')).not.toBe(base);
    expect(deriveSpecializeNonce('k2', 'ns', 'uid-1')).not.toBe(base);
  });

  it('refuses to derive without a namespace, a uid or a key', () => {
    expect(() => deriveSpecializeNonce('k', '', 'u')).toThrow(/namespace/);
    expect(() => deriveSpecializeNonce('k', 'n', '')).toThrow(/uid/);
    expect(() => deriveSpecializeNonce('', 'n', 'u')).toThrow(/empty/);
  });

  it('the verifier is SHA-256 of the nonce, and only the nonce matches it', () => {
    const nonce = mintSpecializeNonce();
    const v = specializeVerifier(nonce);
    expect(v).toBe(createHash('sha256').update(nonce).digest('hex'));
    expect(isSpecializeVerifier(v)).toBe(true);
    expect(nonceMatchesVerifier(nonce, v)).toBe(true);
    for (const wrong of ['', `${nonce}x`, nonce.slice(1), v, mintSpecializeNonce()]) expect(nonceMatchesVerifier(wrong, v), wrong).toBe(false);
  });

  it('a malformed verifier matches nothing (not even the empty string hashed)', () => {
    const emptyHash = createHash('sha256').update('').digest('hex');
    expect(nonceMatchesVerifier('', emptyHash)).toBe(false);
    for (const bad of ['', 'abc', emptyHash.toUpperCase(), `${emptyHash}0`]) {
      expect(isSpecializeVerifier(bad)).toBe(false);
      expect(nonceMatchesVerifier('x', bad)).toBe(false);
    }
  });
});
