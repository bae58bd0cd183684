import { describe, expect, it } from 'vitest';
import { applicationProtocols } from './application-protocols.ts';

describe('ALPN protocols of the TLS port', () => {
  it('offers h2 before http/1.1 with the raw ingress (it serves both)', () => {
    expect(applicationProtocols('raw')).toEqual(['h2', 'http/1.1']);
  });

  it('offers only http/1.1 with node:http (it cannot read HTTP/2)', () => {
    expect(applicationProtocols('node')).toEqual(['http/1.1']);
  });
});
