import { describe, expect, it } from 'vitest';
import { nextGeneration } from './generation.ts';

describe('nextGeneration', () => {
  it('starts at 1', () => expect(nextGeneration(undefined, { a: 1 })).toBe(1));
  it('keeps the generation when the spec is unchanged (key order does not matter)', () => {
    expect(nextGeneration({ generation: 4, spec: { a: 1, b: [1, 2] } }, { b: [1, 2], a: 1 })).toBe(4);
  });
  it('bumps on any spec change, nested included', () => {
    expect(nextGeneration({ generation: 4, spec: { a: { b: 1 } } }, { a: { b: 2 } })).toBe(5);
    expect(nextGeneration({ generation: 1, spec: { a: [1, 2] } }, { a: [2, 1] })).toBe(2);
  });
});
