import { describe, expect, it } from 'vitest';
import { urlHasPassword, urlWithoutPassword } from './url-without-password.ts';

describe('urlWithoutPassword', () => {
  it('masks the password and keeps the rest', () => {
    expect(urlWithoutPassword('redis://:s3cret@127.0.0.1:6379')).toBe('redis://:***@127.0.0.1:6379');
    expect(urlWithoutPassword('rediss://user:s3cret@redis.example:6380/0')).toBe('rediss://user:***@redis.example:6380/0');
    expect(urlWithoutPassword('postgres://orrery:p%40ss@pg:5432/orrery?sslmode=require')).toBe('postgres://orrery:***@pg:5432/orrery?sslmode=require');
    expect(urlWithoutPassword('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(urlWithoutPassword('not a url')).toBe('not a url');
  });

  it('tells whether a URL carries a password', () => {
    expect(urlHasPassword('redis://:x@h:1')).toBe(true);
    expect(urlHasPassword('redis://user@h:1')).toBe(false);
    expect(urlHasPassword('redis://h:1')).toBe(false);
    expect(urlHasPassword('nope')).toBe(false);
  });
});
