import { describe, expect, it } from 'vitest';
import { effectiveDefaultTtlMs, effectiveKeyspace, effectiveMaxKeys, effectiveMaxValueBytes } from './effective.ts';

describe('effective state values', () => {
  it('keyspace defaults to the function name', () => {
    expect(effectiveKeyspace('counter', undefined)).toBe('counter');
    expect(effectiveKeyspace('counter', {})).toBe('counter');
    expect(effectiveKeyspace('counter', { keyspace: 'counts' })).toBe('counts');
  });
  it('zero quotas resolve to the platform defaults', () => {
    expect(effectiveMaxValueBytes({ maxValueBytes: 0 })).toBe(262144);
    expect(effectiveMaxValueBytes({ maxValueBytes: 10 })).toBe(10);
    expect(effectiveMaxKeys({ maxKeys: 0 })).toBe(10000);
    expect(effectiveMaxKeys({ maxKeys: 5 })).toBe(5);
  });
  it('default TTL parses durations', () => {
    expect(effectiveDefaultTtlMs({ defaultTTL: '1m30s' })).toBe(90_000);
    expect(effectiveDefaultTtlMs({})).toBe(0);
  });
});
