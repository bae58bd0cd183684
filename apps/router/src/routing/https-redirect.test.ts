import { describe, expect, it } from 'vitest';
import { httpsLocation, needsHttpsRedirect } from './https-redirect.ts';

describe('HTTP → HTTPS redirect', () => {
  it('redirects plain requests for a redirecting host only', () => {
    expect(needsHttpsRedirect(true, false, false, undefined)).toBe(true);
    expect(needsHttpsRedirect(false, false, false, undefined)).toBe(false);
    expect(needsHttpsRedirect(true, true, false, undefined)).toBe(false);
  });

  it('believes X-Forwarded-Proto: https only from a trusted proxy (a TLS-terminating balancer in front)', () => {
    expect(needsHttpsRedirect(true, false, true, 'https')).toBe(false);
    expect(needsHttpsRedirect(true, false, true, 'HTTPS, http')).toBe(false);
    expect(needsHttpsRedirect(true, false, true, 'http, https')).toBe(true);
    expect(needsHttpsRedirect(true, false, true, undefined)).toBe(true);
    expect(needsHttpsRedirect(true, false, false, 'https')).toBe(true);
  });

  it.each([
    ['/a/b?x=1&y=2', 443, 'https://shop.example.com/a/b?x=1&y=2'],
    ['/', 8443, 'https://shop.example.com:8443/'],
    ['//evil.example/x', 443, 'https://shop.example.com//evil.example/x'],
    ['http://shop.example.com/p?q', 443, 'https://shop.example.com/p?q'],
    ['http://shop.example.com?q', 443, 'https://shop.example.com/?q'],
    ['http://shop.example.com', 443, 'https://shop.example.com/'],
    ['*', 443, 'https://shop.example.com/'],
  ])('keeps path and query of %j (port %i)', (target, port, location) => {
    expect(httpsLocation('shop.example.com', target, port)).toBe(location);
  });
});
