import { describe, expect, it } from 'vitest';
import { parseGrpcTimeout } from './grpc-timeout.ts';

describe('parseGrpcTimeout', () => {
  it('reads every unit as milliseconds', () => {
    expect(parseGrpcTimeout('2H')).toBe(7_200_000);
    expect(parseGrpcTimeout('3M')).toBe(180_000);
    expect(parseGrpcTimeout('5S')).toBe(5_000);
    expect(parseGrpcTimeout('250m')).toBe(250);
    expect(parseGrpcTimeout('1500u')).toBe(2);
    expect(parseGrpcTimeout('99999999n')).toBe(100);
    expect(parseGrpcTimeout(' 10S ')).toBe(10_000);
  });

  it('rounds a tiny deadline up to 1 ms rather than to none', () => {
    expect(parseGrpcTimeout('1n')).toBe(1);
  });

  it('refuses absent and malformed values', () => {
    expect(parseGrpcTimeout(undefined)).toBeUndefined();
    expect(parseGrpcTimeout('')).toBeUndefined();
    expect(parseGrpcTimeout('10')).toBeUndefined();
    expect(parseGrpcTimeout('S')).toBeUndefined();
    expect(parseGrpcTimeout('123456789S')).toBeUndefined();
    expect(parseGrpcTimeout('1.5S')).toBeUndefined();
    expect(parseGrpcTimeout('-1S')).toBeUndefined();
    expect(parseGrpcTimeout('10s')).toBeUndefined();
  });
});
