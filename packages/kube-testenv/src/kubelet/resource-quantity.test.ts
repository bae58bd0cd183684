import { describe, expect, it } from 'vitest';
import { parseQuantity, resourceValue } from './resource-quantity.ts';

describe('parseQuantity', () => {
  it.each([
    ['1', 1],
    ['250m', 0.25],
    ['1.5', 1.5],
    ['2k', 2000],
    ['64Mi', 64 * 2 ** 20],
    ['24Gi', 24 * 2 ** 30],
    ['1e3', 1000],
    ['100n', 1e-7],
    [3, 3],
  ] as Array<[string | number, number]>)('%s', (q, want) => {
    expect(parseQuantity(q)).toBeCloseTo(want, 12);
  });

  it('refuses what is not a quantity', () => {
    expect(() => parseQuantity('12 apples')).toThrow(/not a resource quantity/);
  });
});

describe('resourceValue', () => {
  it('divides and rounds up as the kubelet does', () => {
    expect(resourceValue('requests.cpu', '250m', '1')).toBe('1');
    expect(resourceValue('requests.cpu', '250m', '1m')).toBe('250');
    expect(resourceValue('limits.cpu', '2', undefined)).toBe('2');
    expect(resourceValue('limits.memory', '128Mi', '1Mi')).toBe('128');
    expect(resourceValue('limits.memory', '100M', '1Mi')).toBe('96');
    expect(resourceValue('requests.memory', '0', undefined)).toBe('0');
  });
});
