import { describe, expect, it } from 'vitest';
import { crossOriginRefusal } from './same-origin-request.ts';

const post = (o: { origin?: string | null; secFetchSite?: string | null; host?: string; allowedOrigins?: string[] }) => crossOriginRefusal({ method: 'POST', host: 'console.example:3000', ...o });

describe('crossOriginRefusal', () => {
  it('lets safe methods through whatever their origin', () => {
    for (const method of ['GET', 'head', 'OPTIONS']) expect(crossOriginRefusal({ method, origin: 'https://evil.example', host: 'console.example' })).toBeUndefined();
  });
  it('a POST from the same host passes, whatever the scheme', () => {
    expect(post({ origin: 'http://console.example:3000' })).toBeUndefined();
    expect(post({ origin: 'https://CONSOLE.example:3000' })).toBeUndefined();
  });
  it.each(['https://evil.example', 'http://console.example', 'http://console.example:3001', 'http://console.example.evil.example:3000', 'null', 'file://', 'not a url', 'javascript:alert(1)'])('a POST from %j is refused', (origin) => {
    expect(post({ origin })).toMatch(/may not change anything here/);
  });
  it('configured public origins pass', () => {
    expect(post({ origin: 'https://orrery.example', allowedOrigins: ['https://orrery.example/'] })).toBeUndefined();
    expect(post({ origin: 'https://orrery.example:8443', allowedOrigins: ['https://orrery.example'] })).toMatch(/refused|may not/);
  });
  it('without Origin: Sec-Fetch-Site decides; neither header = a non-browser client, allowed', () => {
    expect(post({ origin: null, secFetchSite: 'same-origin' })).toBeUndefined();
    expect(post({ origin: '', secFetchSite: 'none' })).toBeUndefined();
    expect(post({ secFetchSite: 'cross-site' })).toMatch(/cross-site request/);
    expect(post({ secFetchSite: 'same-site' })).toMatch(/same-site request/);
    expect(post({})).toBeUndefined();
  });
  it('a POST with an Origin but no Host to compare is refused', () => {
    expect(crossOriginRefusal({ method: 'POST', origin: 'http://a.example' })).toMatch(/may not/);
  });
});
