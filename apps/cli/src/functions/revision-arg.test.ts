import { describe, expect, it } from 'vitest';
import { revisionName } from './revision-arg.ts';

describe('revisionName', () => {
  it('expands a number to the operator-made name and keeps full names', () => {
    expect(revisionName('counter', '2')).toBe('counter-00002');
    expect(revisionName('counter', '00012')).toBe('counter-00012');
    expect(revisionName('counter', 'counter-00003')).toBe('counter-00003');
  });
});
