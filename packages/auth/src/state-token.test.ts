import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveStateToken, StateTokenVerifier, verifyStateToken } from './state-token.ts';

const master = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
const other = Buffer.alloc(32, 7);
const name = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);

describe('state tokens', () => {
  it('match an independent HKDF-SHA256 computation (python hashlib)', () => {
    expect(deriveStateToken(master, 'default', 'cart')).toBe('52327802db0a77ca591c6382f2023a1036f50d3a337da12cd6d009966532c1e0');
  });

  it('verify for their own scope only', () => {
    fc.assert(
      fc.property(name, name, name, name, (ns, ks, ns2, ks2) => {
        const token = deriveStateToken(master, ns, ks);
        expect(verifyStateToken(token, ns, ks, [master])).toBe(true);
        expect(new StateTokenVerifier([master]).verify(token, ns, ks)).toBe(true);
        if (ns !== ns2 || ks !== ks2) {
          expect(verifyStateToken(token, ns2, ks2, [master])).toBe(false);
          expect(new StateTokenVerifier([master]).verify(token, ns2, ks2)).toBe(false);
        }
      }),
    );
  });

  it('reject malformed tokens, other keys and other key versions', () => {
    const token = deriveStateToken(master, 'a', 'b');
    for (const bad of ['', 'x', token.toUpperCase(), token.slice(2), `${token}00`, token.replace(/.$/, (c) => (c === '0' ? '1' : '0'))]) {
      expect(verifyStateToken(bad, 'a', 'b', [master])).toBe(false);
    }
    expect(verifyStateToken(token, 'a', 'b', [other])).toBe(false);
    expect(verifyStateToken(deriveStateToken(master, 'a', 'b', 'v2'), 'a', 'b', [master])).toBe(false);
    expect(verifyStateToken(token, 'a', 'b', [])).toBe(false);
  });

  it('rotation: the previous key is accepted only while configured', () => {
    const oldToken = deriveStateToken(other, 'ns', 'ks');
    const newToken = deriveStateToken(master, 'ns', 'ks');
    const during = new StateTokenVerifier([master, other]);
    expect(during.verify(oldToken, 'ns', 'ks')).toBe(true);
    expect(during.verify(newToken, 'ns', 'ks')).toBe(true);
    const after = new StateTokenVerifier([master]);
    expect(after.verify(oldToken, 'ns', 'ks')).toBe(false);
    expect(after.verify(newToken, 'ns', 'ks')).toBe(true);
  });

  it('the verifier cache stays bounded and correct', () => {
    const v = new StateTokenVerifier([master], 'v1', 4);
    for (let i = 0; i < 20; i++) expect(v.verify(deriveStateToken(master, 'n', `k${i}`), 'n', `k${i}`)).toBe(true);
    expect(v.verify(deriveStateToken(master, 'n', 'k1'), 'n', 'k2')).toBe(false);
  });
});
