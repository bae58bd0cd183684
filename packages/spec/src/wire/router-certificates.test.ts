import { describe, expect, it } from 'vitest';
import { hostOfRouterCertificateFile, routerCertificateFile, routerCertificatePem } from './router-certificates.ts';

describe('router certificate bundle names', () => {
  it('round-trips a host through its file name', () => {
    expect(hostOfRouterCertificateFile(routerCertificateFile('shop.example.com'))).toBe('shop.example.com');
  });

  it.each(['..data', '..2026_01_01_00_00_00.123', 'shop.example.com.pem.tmp', 'Shop.example.com.pem', '.pem', 'localhost.pem', '..pem', 'a/b.example.com.pem'])('ignores %j', (file) => {
    expect(hostOfRouterCertificateFile(file)).toBeUndefined();
  });

  it('puts the chain before the key, each ending in a newline', () => {
    expect(routerCertificatePem('CHAIN', 'KEY\n')).toBe('CHAIN\nKEY\n');
  });
});
