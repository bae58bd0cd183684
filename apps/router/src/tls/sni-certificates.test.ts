import { describe, expect, it } from 'vitest';
import { certificateFor, serverNameKey } from './sni-certificates.ts';

const table = new Map([
  ['shop.example.com', 'shop-cert'],
  ['api.example.com', 'api-cert'],
]);

describe('certificate by server name (SNI)', () => {
  it('picks the certificate of exactly that host', () => {
    expect(certificateFor(table, 'shop.example.com')).toBe('shop-cert');
    expect(certificateFor(table, 'api.example.com')).toBe('api-cert');
  });

  it('compares as DNS does: any case, a trailing dot ignored', () => {
    expect(certificateFor(table, 'SHOP.Example.Com')).toBe('shop-cert');
    expect(certificateFor(table, 'shop.example.com.')).toBe('shop-cert');
    expect(serverNameKey('A.B.')).toBe('a.b');
  });

  it('has no certificate for another name, a parent or child name, or no name at all', () => {
    for (const name of ['other.example.com', 'example.com', 'x.shop.example.com', '*.example.com', '', undefined]) expect(certificateFor(table, name)).toBeUndefined();
  });
});
