import { describe, expect, it } from 'vitest';
import { splitPool } from './open-driver.ts';

describe('splitPool', () => {
  it('keeps the total and gives transactions about a third, at least two', () => {
    for (let total = 4; total <= 64; total++) {
      const s = splitPool(total);
      expect(s.transactions + s.statements).toBe(total);
      expect(s.transactions).toBeGreaterThanOrEqual(2);
      expect(s.statements).toBeGreaterThanOrEqual(2);
    }
    expect(splitPool(10)).toEqual({ transactions: 3, statements: 7 });
    expect(splitPool(32)).toEqual({ transactions: 11, statements: 21 });
  });

  it('below four connections everything shares one pool', () => {
    expect(splitPool(3)).toEqual({ transactions: 3, statements: 0 });
    expect(splitPool(1)).toEqual({ transactions: 1, statements: 0 });
  });
});
