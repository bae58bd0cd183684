import { describe, expect, it } from 'vitest';
import { objectKey, splitKey } from './object-key.ts';

describe('objectKey / splitKey', () => {
  it('round-trip a namespace and a name', () => {
    expect(splitKey(objectKey('prod', 'checkout-00003'))).toEqual(['prod', 'checkout-00003']);
  });

  it('split at the first slash (names never contain one)', () => {
    expect(splitKey('prod/a/b')).toEqual(['prod', 'a/b']);
  });

  it('refuse a key objectKey cannot have made, instead of guessing', () => {
    for (const bad of ['abc', '', '/name', 'ns/']) expect(() => splitKey(bad)).toThrow(/not a namespace\/name key/);
  });
});
