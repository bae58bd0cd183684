import { describe, expect, it } from 'vitest';
import { splitBundle } from './certificate-bundle.ts';

const cert = (n: number) => `-----BEGIN CERTIFICATE-----\nCERT${n}\n-----END CERTIFICATE-----`;
const key = (kind = '') => `-----BEGIN ${kind}PRIVATE KEY-----\nKEY\n-----END ${kind}PRIVATE KEY-----`;

describe('certificate bundle (<host>.pem)', () => {
  it('splits the chain (in order) from the key', () => {
    const b = splitBundle(`${cert(1)}\n${cert(2)}\n${key()}\n`);
    expect(b).toEqual({ chainPem: `${cert(1)}\n${cert(2)}\n`, keyPem: `${key()}\n` });
  });

  it('takes EC and RSA key blocks, wherever the key is', () => {
    expect('keyPem' in splitBundle(`${key('EC ')}\n${cert(1)}`)).toBe(true);
    expect('keyPem' in splitBundle(`${cert(1)}${key('RSA ')}`)).toBe(true);
  });

  it.each([
    [`${key()}`, 'no CERTIFICATE block'],
    [`${cert(1)}`, 'no PRIVATE KEY block'],
    [`${cert(1)}${key()}${key()}`, '2 PRIVATE KEY blocks (want one)'],
    [`${cert(1)}${key('ENCRYPTED ')}`, 'the private key is encrypted (the router has no passphrase)'],
  ])('refuses %#, saying why without key material', (text, problem) => {
    expect(splitBundle(text)).toEqual({ problem });
  });
});
