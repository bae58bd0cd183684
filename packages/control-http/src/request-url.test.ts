import { describe, expect, it } from 'vitest';
import { urlPath, urlQuery } from './request-url.ts';

describe('urlPath / urlQuery', () => {
  it('split a request URL at its first ?', () => {
    expect(urlPath('/v1/admin/usage?scope-namespace=a&x=?')).toBe('/v1/admin/usage');
    expect(urlQuery('/v1/admin/usage?scope-namespace=a&x=?')).toBe('scope-namespace=a&x=?');
  });

  it('a URL without a query, and no URL at all', () => {
    expect(urlPath('/healthz')).toBe('/healthz');
    expect(urlQuery('/healthz')).toBe('');
    expect(urlPath(undefined)).toBe('/');
    expect(urlQuery(undefined)).toBe('');
  });
});
