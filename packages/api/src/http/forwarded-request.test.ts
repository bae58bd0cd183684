import { describe, expect, it } from 'vitest';
import { forwardedFacts } from './forwarded-request.ts';
import { parseTrustedProxies } from './trusted-proxies.ts';

const proxy = parseTrustedProxies('10.0.0.0/24');
const nobody = parseTrustedProxies(undefined);

describe('forwardedFacts', () => {
  it('from an untrusted peer: forwarded headers are ignored', () => {
    const f = forwardedFacts({ peer: '203.0.113.9', encrypted: false, xForwardedFor: '1.1.1.1', xForwardedProto: 'https', xForwardedHost: 'evil.example', host: 'console:3000' }, proxy);
    expect(f).toEqual({ clientAddress: '203.0.113.9', secure: false, host: 'console:3000', viaTrustedProxy: false });
    expect(forwardedFacts({ peer: '10.0.0.5', encrypted: false, xForwardedProto: 'https' }, nobody).secure).toBe(false);
  });
  it('TLS on the connection itself is secure', () => {
    expect(forwardedFacts({ peer: '203.0.113.9', encrypted: true }, proxy).secure).toBe(true);
  });
  it('from a trusted proxy: its X-Forwarded-Proto and -Host count, the last value wins', () => {
    const f = forwardedFacts({ peer: '10.0.0.5', encrypted: false, xForwardedProto: 'http, https', xForwardedHost: 'a.example, console.example', host: 'internal:3000' }, proxy);
    expect(f).toMatchObject({ secure: true, host: 'console.example', viaTrustedProxy: true });
    expect(forwardedFacts({ peer: '10.0.0.5', encrypted: true, xForwardedProto: 'http' }, proxy).secure).toBe(false); // the client used http
    expect(forwardedFacts({ peer: '::ffff:10.0.0.5', encrypted: false, xForwardedProto: 'HTTPS' }, proxy).secure).toBe(true);
    expect(forwardedFacts({ peer: '10.0.0.5', encrypted: false, host: 'internal:3000' }, proxy)).toMatchObject({ secure: false, host: 'internal:3000' });
  });
  it('X-Forwarded-For is walked from the right past trusted hops; a client cannot prepend its way in', () => {
    const f = (xff: string | undefined) => forwardedFacts({ peer: '10.0.0.5', encrypted: false, xForwardedFor: xff }, proxy).clientAddress;
    expect(f('198.51.100.7')).toBe('198.51.100.7');
    expect(f('1.2.3.4, 198.51.100.7')).toBe('198.51.100.7'); // 1.2.3.4 is what the client claimed
    expect(f('198.51.100.7, 10.0.0.9')).toBe('198.51.100.7'); // a second trusted hop
    expect(f('10.0.0.8, 10.0.0.9')).toBe('10.0.0.8'); // only trusted hops: the farthest
    expect(f(undefined)).toBe('10.0.0.5');
    expect(f('')).toBe('10.0.0.5');
    expect(f('garbage, 10.0.0.9')).toBe('10.0.0.9'); // garbage: the last hop vouched for
    expect(f('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });
});
