import { describe, expect, it } from 'vitest';
import { localSecretPathSegments, localSecretRefProblem } from './local-secrets.ts';

describe('local secret paths', () => {
  it('maps a reference to secrets/<namespace>/<name>/<key>', () => {
    expect(localSecretPathSegments({ namespace: 'shop', name: 'payment.keys', key: 'api_key-1.pem' })).toEqual(['secrets', 'shop', 'payment.keys', 'api_key-1.pem']);
    expect(localSecretPathSegments({ namespace: 'shop', name: 'keys' })).toEqual(['secrets', 'shop', 'keys']);
  });

  it('refuses anything that could leave its folder or name another file', () => {
    for (const [ref, what] of [
      [{ namespace: '..', name: 'k', key: 'a' }, /namespace/],
      [{ namespace: 'a/b', name: 'k', key: 'a' }, /namespace/],
      [{ namespace: 'Shop', name: 'k', key: 'a' }, /namespace/],
      [{ namespace: 'shop', name: '..', key: 'a' }, /secret name/],
      [{ namespace: 'shop', name: 'a/b', key: 'a' }, /secret name/],
      [{ namespace: 'shop', name: '.hidden', key: 'a' }, /secret name/],
      [{ namespace: 'shop', name: 'k', key: '..' }, /secret key/],
      [{ namespace: 'shop', name: 'k', key: '.' }, /secret key/],
      [{ namespace: 'shop', name: 'k', key: 'a/b' }, /secret key/],
      [{ namespace: 'shop', name: 'k', key: '' }, /secret key/],
      [{ namespace: 'shop', name: 'k', key: 'a\u0000' }, /secret key/],
    ] as const) {
      expect(localSecretRefProblem(ref), JSON.stringify(ref)).toMatch(what);
      expect(() => localSecretPathSegments(ref)).toThrow(what);
    }
  });
});
