import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fenceOf } from './fence-header.ts';
import { HttpError } from './http-error.ts';

const codeOf = (header: string | string[] | undefined): string => {
  try {
    return String(fenceOf(header));
  } catch (err) {
    return err instanceof HttpError ? err.code : 'not an HttpError';
  }
};

describe('fenceOf (X-Orrery-Fence)', () => {
  it('absent: no fence, the write is not checked', () => {
    expect(fenceOf(undefined)).toBeUndefined();
  });

  it.each([
    ['1', 1],
    ['42', 42],
    [' 7 ', 7],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('accepts %j', (text, n) => {
    expect(fenceOf(text)).toBe(n);
  });

  it.each(['', ' ', '0', '-1', '+1', '01', '1.0', '1e3', '0x10', 'abc', '9007199254740992', '99999999999999999999', 'Infinity', 'NaN', '1,2', '１'])(
    'refuses %j with fence_invalid',
    (text) => {
      expect(codeOf(text)).toBe('fence_invalid');
    },
  );

  it('refuses the header sent twice', () => {
    expect(codeOf(['1', '1'])).toBe('fence_invalid');
  });

  it('property: any positive safe integer round-trips; any other string is refused', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (n) => fenceOf(String(n)) === n));
    fc.assert(
      fc.property(fc.string(), (s) => {
        const t = s.trim();
        const valid = /^[1-9][0-9]*$/.test(t) && Number.isSafeInteger(Number(t));
        return valid ? fenceOf(s) === Number(t) : codeOf(s) === 'fence_invalid';
      }),
      { seed: 22, numRuns: 2000 },
    );
  });
});
