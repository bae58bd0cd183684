import { describe, expect, it } from 'vitest';
import { AXIS_LABEL_CHARS, formatRate, hotKeyBars } from './hot-key-bars.ts';

describe('hotKeyBars', () => {
  it('turns shares into percent bars, marks those above the alert share and shows the error in points', () => {
    expect(hotKeyBars([{ key: 'cart/alice', rate: 9, share: 0.45, rateError: 0 }, { key: 'cart/bob', rate: 2, share: 0.2, rateError: 0.5 }], 20, 0.2)).toEqual([
      { key: 'cart/alice', label: 'cart/alice', rate: 9, percent: 45, errorPercent: 0, hot: true },
      // Exactly at the share is not above it.
      { key: 'cart/bob', label: 'cart/bob', rate: 2, percent: 20, errorPercent: 2.5, hot: false },
    ]);
  });
  it('cuts long keys on the axis only', () => {
    const key = 'x'.repeat(100);
    const [bar] = hotKeyBars([{ key, rate: 1, share: 1, rateError: 0 }], 1, 0.2);
    expect(bar!.key).toBe(key);
    expect(bar!.label).toHaveLength(AXIS_LABEL_CHARS);
    expect(bar!.label.endsWith('…')).toBe(true);
    expect(hotKeyBars([{ key: 'x'.repeat(AXIS_LABEL_CHARS), rate: 1, share: 1, rateError: 0 }], 1, 0.2)[0]!.label).toBe('x'.repeat(AXIS_LABEL_CHARS));
  });
  it('no traffic: no error share, never NaN', () => {
    expect(hotKeyBars([{ key: 'k', rate: 0, share: 0, rateError: 0.1 }], 0, 0.2)[0]).toMatchObject({ percent: 0, errorPercent: 0, hot: false });
    expect(hotKeyBars([], 5, 0.2)).toEqual([]);
  });
});

describe('formatRate', () => {
  it.each([
    [0, '0/s'],
    [0.421, '0.42/s'],
    [1, '1/s'],
    [12.34, '12.3/s'],
    [99.96, '100/s'],
    [1234.4, '1 234/s'],
  ])('%s → %s', (rate, text) => {
    expect(formatRate(rate)).toBe(text);
  });
});
