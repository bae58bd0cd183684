import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signAdminUrl, signKeyspaceDeletionUrl, verifyAdminUrl } from './admin-url.ts';

const master = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex');
const other = Buffer.alloc(32, 9);
const path = '/v1/admin/usage?scope-namespace=default&scope-keyspace=cart';

describe('signed admin URLs', () => {
  it('sign as the issue specifies (independent python HMAC)', () => {
    expect(signAdminUrl(master, 'GET', path, 2_000_000_000)).toBe(
      `${path}&expires=2000000000&signature=a1460c8b5ed676a8fd37cca0a64935b5b8f05fb2472ddcd82ffa19127d81efdc`,
    );
  });

  it('verify until they expire, then refuse', () => {
    const url = signAdminUrl(master, 'GET', path, 1000);
    expect(verifyAdminUrl([master], 'GET', url, 999)).toEqual({ ok: true });
    expect(verifyAdminUrl([master], 'GET', url, 1001)).toMatchObject({ ok: false, reason: expect.stringMatching(/expired/) });
  });

  it('refuse another method, another key, missing or duplicated parameters', () => {
    const url = signAdminUrl(master, 'GET', path, 2_000_000_000);
    expect(verifyAdminUrl([master], 'POST', url, 0).ok).toBe(false);
    expect(verifyAdminUrl([other], 'GET', url, 0).ok).toBe(false);
    expect(verifyAdminUrl([master], 'GET', path, 0).ok).toBe(false);
    expect(verifyAdminUrl([master], 'GET', `${url}&signature=${'0'.repeat(64)}`, 0).ok).toBe(false);
    expect(verifyAdminUrl([master], 'GET', url.replace('expires=2000000000', 'expires=x'), 0).ok).toBe(false);
    expect(verifyAdminUrl([other, master], 'GET', url, 0).ok).toBe(true); // rotation window
  });

  it('any change to the signed path or query breaks the signature', () => {
    const url = signAdminUrl(master, 'GET', path, 2_000_000_000);
    const sigAt = url.indexOf('&signature=');
    fc.assert(
      fc.property(fc.nat(sigAt - 1), fc.constantFrom('a', 'b', '0', '&', '=', '%'), (i, ch) => {
        fc.pre(url[i] !== ch);
        const tampered = url.slice(0, i) + ch + url.slice(i + 1);
        expect(verifyAdminUrl([master], 'GET', tampered, 0).ok).toBe(false);
      }),
    );
    expect(verifyAdminUrl([master], 'GET', url.replace('cart', 'other'), 0).ok).toBe(false);
    expect(verifyAdminUrl([master], 'GET', `${url}&scope-keyspace=other`, 0).ok).toBe(false);
  });

  it('keyspace deletion URLs are DELETE-signed and bind the scope', () => {
    const url = signKeyspaceDeletionUrl(master, 'default', 'cart', 2_000_000_000);
    expect(url).toBe(signAdminUrl(master, 'DELETE', '/v1/admin/keyspace?scope-namespace=default&scope-keyspace=cart', 2_000_000_000));
    expect(verifyAdminUrl([master], 'DELETE', url, 0)).toEqual({ ok: true });
    expect(verifyAdminUrl([master], 'GET', url, 0).ok).toBe(false);
    expect(verifyAdminUrl([master], 'DELETE', url.replace('scope-keyspace=cart', 'scope-keyspace=orders'), 0).ok).toBe(false);
  });
});
