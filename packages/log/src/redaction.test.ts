import { afterEach, describe, expect, it } from 'vitest';
import { forgetRegisteredSecrets, MIN_SECRET_LENGTH, redactFields, redactText, registerSecret, registerUrlSecret } from './redaction.ts';

afterEach(() => forgetRegisteredSecrets());

describe('redactText', () => {
  it('cuts passwords in postgres:// and redis:// URLs, keeping user and host', () => {
    expect(redactText('connect to postgres://orrery:s3cr3t@db:5432/state failed')).toBe('connect to postgres://orrery:***@db:5432/state failed');
    expect(redactText('redis://:pw@r:6379 and rediss://u:p%40ss@h')).toBe('redis://:***@r:6379 and rediss://u:***@h');
    expect(redactText('postgres://orrery@db/state')).toBe('postgres://orrery@db/state');
  });

  it('cuts bearer strings, key=value secrets, long hex and drizzle params', () => {
    expect(redactText('Authorization: Bearer abc.def')).toBe('Authorization: Bearer ***');
    expect(redactText('sent bearer eyJhbGciOi, then retried')).toBe('sent bearer ***, then retried');
    expect(redactText('Authorization: Bearer <admin_token>')).toBe('Authorization: Bearer ***');
    // Prose is not a credential: a short plain word after "bearer" stays.
    expect(redactText('any bearer token is accepted')).toBe('any bearer token is accepted');
    expect(redactText('Bearer abcdefghijklm')).toBe('Bearer ***');
    expect(redactText('password=hunter2 token: abc, secret="x y" api_key=k')).toBe('password=*** token: ***, secret=*** api_key=***');
    expect(redactText(`token ${'ab12'.repeat(16)} end`)).toBe('token *** end');
    expect(redactText('Failed query: select 1\nparams: default,cart,17')).toBe('Failed query: select 1\nparams: [redacted]');
  });

  it('leaves ordinary text alone', () => {
    const text = 'routes loaded: 3 functions, 4 revisions (hello-00002 at 127.0.0.1:8080)';
    expect(redactText(text)).toBe(text);
  });
});

describe('registerSecret', () => {
  it('masks every later occurrence of a registered value, whatever surrounds it', () => {
    const secret = 'Zq9-canary_Value';
    expect(redactText(`got ${secret}`)).toBe(`got ${secret}`);
    registerSecret(secret);
    expect(redactText(`got ${secret}; again:${secret}!`)).toBe('got ***; again:***!');
  });

  it('masks the longer of two overlapping secrets whole', () => {
    registerSecret('abcdefgh');
    registerSecret('abcdefgh-and-more');
    expect(redactText('x abcdefgh-and-more y abcdefgh')).toBe('x *** y ***');
  });

  it('ignores empty, missing and too-short values (they would mask ordinary words)', () => {
    registerSecret(undefined);
    registerSecret('');
    registerSecret('a'.repeat(MIN_SECRET_LENGTH - 1));
    expect(redactText('a'.repeat(MIN_SECRET_LENGTH + 2))).toBe('a'.repeat(MIN_SECRET_LENGTH + 2));
  });

  it('takes regex metacharacters literally', () => {
    registerSecret('p.ss+wo(rd)*');
    expect(redactText('p.ss+wo(rd)* and pXss+wo(rd)')).toBe('*** and pXss+wo(rd)');
  });

  it('registerUrlSecret registers the password of a URL, raw and decoded', () => {
    registerUrlSecret('redis://:r3dis%2Fpass@cache:6379');
    expect(redactText('AUTH r3dis/pass failed; r3dis%2Fpass')).toBe('AUTH *** failed; ***');
    registerUrlSecret('not a url');
    registerUrlSecret(undefined);
  });
});

describe('redactFields', () => {
  it('redacts strings at any depth, turns Errors into their redacted message, keeps numbers', () => {
    registerSecret('canary-123456');
    const out = redactFields({
      n: 3,
      url: 'postgres://u:pw@db/x',
      nested: { list: ['Bearer abc123', 'canary-123456'] },
      err: new Error('auth canary-123456 refused'),
      at: new Date('2026-01-02T03:04:05.000Z'),
      target: new URL('redis://:canary-123456@cache:6379'),
    });
    expect(out).toEqual({
      n: 3,
      url: 'postgres://u:***@db/x',
      nested: { list: ['Bearer ***', '***'] },
      err: 'auth *** refused',
      at: '2026-01-02T03:04:05.000Z',
      target: 'redis://:***@cache:6379',
    });
  });

  it('stops at a depth bound instead of walking a deep or cyclic value forever', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(JSON.stringify(redactFields(cyclic))).toContain('[nested too deep]');
  });
});
