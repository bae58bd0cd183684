import { describe, expect, it } from 'vitest';
import { formatAge } from './age.ts';

const now = new Date('2026-06-15T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

describe('AGE column (kubectl ShortHumanDuration)', () => {
  it.each([
    [0, '0s'],
    [5_400, '5s'],
    [59_999, '59s'],
    [60_000, '1m'],
    [3 * 60_000 + 59_000, '3m'],
    [59 * 60_000, '59m'],
    [2 * 3_600_000 + 30 * 60_000, '2h'],
    [23 * 3_600_000 + 59 * 60_000, '23h'],
    [4 * 86_400_000 + 3_600_000, '4d'],
    [729 * 86_400_000, '729d'],
    [3 * 365 * 86_400_000, '3y'],
  ])('%i ms ago → %s', (ms, want) => {
    expect(formatAge(ago(ms), now)).toBe(want);
  });

  it('a missing, unreadable or future timestamp says so instead of inventing an age', () => {
    expect(formatAge(undefined, now)).toBe('<unknown>');
    expect(formatAge('yesterday', now)).toBe('<unknown>');
    expect(formatAge(ago(-500), now)).toBe('0s');
    expect(formatAge(ago(-5_000), now)).toBe('<invalid>');
  });
});
