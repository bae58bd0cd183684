import { describe, expect, it } from 'vitest';
import { REFUSED_DIAL_ATTEMPTS, refusedDialAttempts } from './refused-dial-budget.ts';

describe('refusedDialAttempts', () => {
  it('gives refused dials at least REFUSED_DIAL_ATTEMPTS retries', () => {
    expect(refusedDialAttempts(2)).toBe(REFUSED_DIAL_ATTEMPTS);
    expect(refusedDialAttempts(1)).toBe(REFUSED_DIAL_ATTEMPTS);
  });
  it('keeps a larger --dial-retries', () => {
    expect(refusedDialAttempts(25)).toBe(25);
  });
  it('keeps --dial-retries 0 as no retry at all', () => {
    expect(refusedDialAttempts(0)).toBe(0);
  });
});
