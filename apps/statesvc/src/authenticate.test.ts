import { deriveStateToken, STATE_PLACEHOLDER_TOKEN } from '@orrery/auth';
import { describe, expect, it } from 'vitest';
import { Authenticator } from './authenticate.ts';
import { HttpError } from './http-error.ts';

const KEY = Buffer.alloc(32, 0x21);
const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'x-orrery-state-namespace': 'shop', 'x-orrery-state-keyspace': 'cart' });
const outcome = (a: Authenticator, token: string) => {
  try {
    return a.scope(headers(token)).keyspace;
  } catch (e) {
    return e instanceof HttpError ? `${e.code}: ${e.message}` : 'other';
  }
};

describe('Authenticator and the development placeholder token', () => {
  it('pass-through (no master key) accepts the placeholder the operator hands out without a key', () => {
    expect(outcome(new Authenticator([], true), STATE_PLACEHOLDER_TOKEN)).toBe('cart');
  });

  it('with a master key the placeholder is refused (403) with what to do; a derived token passes', () => {
    const keyed = new Authenticator([KEY], false);
    expect(outcome(keyed, STATE_PLACEHOLDER_TOKEN)).toMatch(/^forbidden: this is the placeholder token .*--master-key-file/);
    expect(outcome(keyed, deriveStateToken(KEY, 'shop', 'cart'))).toBe('cart');
    expect(outcome(keyed, deriveStateToken(KEY, 'shop', 'other'))).toMatch(/^forbidden: the token does not grant keyspace shop\/cart/);
  });
});
