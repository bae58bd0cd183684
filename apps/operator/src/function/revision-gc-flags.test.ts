import { describe, expect, it } from 'vitest';
import { revisionGcFromFlags } from './revision-gc-flags.ts';

describe('revisionGcFromFlags', () => {
  it('defaults to 20 revisions and 48 h', () => {
    expect(revisionGcFromFlags({})).toEqual({ keep: 20, minAgeMs: 48 * 3_600_000 });
  });

  it('reads both flags', () => {
    expect(revisionGcFromFlags({ 'revision-gc-keep': '0', 'revision-gc-min-age': '0s' })).toEqual({ keep: 0, minAgeMs: 0 });
    expect(revisionGcFromFlags({ 'revision-gc-keep': '5', 'revision-gc-min-age': '90m' })).toEqual({ keep: 5, minAgeMs: 90 * 60_000 });
  });

  it.each([
    [{ 'revision-gc-keep': '-1' }, /--revision-gc-keep must be a whole number/],
    [{ 'revision-gc-keep': '2.5' }, /--revision-gc-keep/],
    [{ 'revision-gc-keep': '1001' }, /from 0 to 1000/],
    [{ 'revision-gc-min-age': '2d' }, /--revision-gc-min-age must be a duration/],
    [{ 'revision-gc-min-age': 'soon' }, /--revision-gc-min-age/],
  ])('refuses %j', (flags, message) => {
    expect(() => revisionGcFromFlags(flags)).toThrow(message);
  });
});
