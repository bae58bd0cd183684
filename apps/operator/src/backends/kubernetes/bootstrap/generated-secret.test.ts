import { describe, expect, it } from 'vitest';
import { parseSecretRef, secretValue } from './generated-secret.ts';

describe('parseSecretRef', () => {
  it('NAME or NAME/KEY, the key defaulting per purpose', () => {
    expect(parseSecretRef('orrery-store-token', 'token')).toEqual({ name: 'orrery-store-token', key: 'token' });
    expect(parseSecretRef('orrery-keys/state.master-key', 'master-key')).toEqual({ name: 'orrery-keys', key: 'state.master-key' });
  });
  it('refuses what is not a Secret name and a data key', () => {
    for (const bad of ['', 'Upper', 'a/b/c', 'name/', 'name/k y', '-lead']) expect(() => parseSecretRef(bad, 'token')).toThrow(/NAME or NAME\/KEY/);
  });
});

describe('secretValue', () => {
  it('decodes the API’s base64 data; absent key or Secret is undefined', () => {
    const s = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { token: Buffer.from('abc').toString('base64') } };
    expect(secretValue(s, 'token')).toBe('abc');
    expect(secretValue(s, 'other')).toBeUndefined();
    expect(secretValue(undefined, 'token')).toBeUndefined();
  });
});
