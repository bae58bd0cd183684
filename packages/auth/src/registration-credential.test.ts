import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveRegistrationCredential, registrationCredentialInfo, RegistrationCredentialVerifier } from './registration-credential.ts';
import { deriveStateToken } from './state-token.ts';

const master = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
const other = Buffer.alloc(32, 7);
const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,12}[a-z0-9])?$/);
const service = fc.tuple(label, label, label).map(([ns, fn, rev]) => `orrery.functions.${ns}.${fn}.${rev}`);
const SERVICE = 'orrery.functions.shop.counter.counter-00001';

describe('registration credentials', () => {
  it('info is v1:registry:<namespace>:<service prefix>', () => {
    expect(registrationCredentialInfo('shop', SERVICE)).toBe(`v1:registry:shop:${SERVICE}`);
  });

  it('match an independent HKDF-SHA256 computation (python hmac/hashlib)', () => {
    expect(deriveRegistrationCredential(master, 'shop', SERVICE)).toBe('e567977be43a9affa00c18a9c17fbc141116783bc3d188e41199b4abeeb7f185');
  });

  it('never equal the state token of the same names (separate info strings)', () => {
    expect(deriveRegistrationCredential(master, 'shop', 'counter')).not.toBe(deriveStateToken(master, 'shop', 'counter'));
  });

  it('verify for their own namespace and service only', () => {
    fc.assert(
      fc.property(label, service, label, service, (ns, svc, ns2, svc2) => {
        const credential = deriveRegistrationCredential(master, ns, svc);
        const v = new RegistrationCredentialVerifier([master]);
        expect(v.verify(credential, ns, svc)).toBe(true);
        if (ns !== ns2 || svc !== svc2) expect(v.verify(credential, ns2, svc2)).toBe(false);
      }),
    );
  });

  it('a credential for one revision does not cover another revision, the function, or a longer name', () => {
    const v = new RegistrationCredentialVerifier([master]);
    const c = deriveRegistrationCredential(master, 'shop', SERVICE);
    expect(v.verify(c, 'shop', 'orrery.functions.shop.counter.counter-00002')).toBe(false);
    expect(v.verify(c, 'shop', 'orrery.functions.shop.counter')).toBe(false);
    expect(v.verify(c, 'shop', `${SERVICE}x`)).toBe(false);
    expect(v.verify(c, 'other', SERVICE)).toBe(false);
  });

  it('reject malformed credentials, other keys, other key versions, and everything without a key', () => {
    const c = deriveRegistrationCredential(master, 'a', SERVICE);
    const v = new RegistrationCredentialVerifier([master]);
    for (const bad of ['', 'x', c.toUpperCase(), c.slice(2), `${c}00`, ` ${c}`, c.replace(/.$/, (ch) => (ch === '0' ? '1' : '0'))]) {
      expect(v.verify(bad, 'a', SERVICE)).toBe(false);
    }
    expect(new RegistrationCredentialVerifier([other]).verify(c, 'a', SERVICE)).toBe(false);
    expect(v.verify(deriveRegistrationCredential(master, 'a', SERVICE, 'v2'), 'a', SERVICE)).toBe(false);
    const none = new RegistrationCredentialVerifier([]);
    expect(none.disabled).toBe(true);
    expect(none.verify(c, 'a', SERVICE)).toBe(false);
  });

  it('rotation: the previous key is accepted only while configured', () => {
    const oldC = deriveRegistrationCredential(other, 'ns', SERVICE);
    const newC = deriveRegistrationCredential(master, 'ns', SERVICE);
    const during = new RegistrationCredentialVerifier([master, other]);
    expect(during.verify(oldC, 'ns', SERVICE)).toBe(true);
    expect(during.verify(newC, 'ns', SERVICE)).toBe(true);
    const after = new RegistrationCredentialVerifier([master]);
    expect(after.verify(oldC, 'ns', SERVICE)).toBe(false);
    expect(after.verify(newC, 'ns', SERVICE)).toBe(true);
  });

  it('the verifier cache stays bounded and correct', () => {
    const v = new RegistrationCredentialVerifier([master], 'v1', 4);
    for (let i = 0; i < 20; i++) expect(v.verify(deriveRegistrationCredential(master, 'n', `s${i}`), 'n', `s${i}`)).toBe(true);
    expect(v.verify(deriveRegistrationCredential(master, 'n', 's1'), 'n', 's2')).toBe(false);
  });
});
