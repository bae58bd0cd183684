import { describe, expect, it } from 'vitest';
import { sameOriginRedirect } from './same-origin-redirect.ts';

const ORIGIN = 'http://127.0.0.1:3000';

describe('sameOriginRedirect', () => {
  it.each([
    ['/functions', '/functions'],
    ['/functions/default/web#sticky', '/functions/default/web#sticky'],
    ['/state/default?keyspace=cart', '/state/default?keyspace=cart'],
    ['/%5Cevil.example', '/%5Cevil.example'], // an encoded backslash is just a path segment
    ['audit', '/audit'], // relative: resolved against the origin
    [`${ORIGIN}/registry`, '/registry'],
    ['/a/../b', '/b'],
  ])('%j → %j', (next, want) => {
    expect(sameOriginRedirect(next, ORIGIN)).toBe(want);
  });

  it.each([
    '/\\evil.example',
    '\\\\evil.example',
    '/\\/evil.example',
    '//evil.example',
    '///evil.example',
    '/.//evil.example',
    '/\t/evil.example',
    ' //evil.example',
    'https://evil.example',
    'https://evil.example/functions',
    'http://127.0.0.1:3001/',
    'https://127.0.0.1:3000/', // another scheme is another origin
    'javascript:alert(1)',
    'data:text/html,x',
    'http://[::1',
    '',
  ])('%j falls back to /', (next) => {
    expect(sameOriginRedirect(next, ORIGIN)).toBe('/');
  });

  it('no next, or a chosen fallback', () => {
    expect(sameOriginRedirect(null, ORIGIN)).toBe('/');
    expect(sameOriginRedirect(undefined, ORIGIN, '/audit')).toBe('/audit');
  });
});
