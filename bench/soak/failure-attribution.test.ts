import { describe, expect, it } from 'vitest';
import { attributeFailures } from './failure-attribution.ts';

describe('attributeFailures', () => {
  const actions = [
    { t: 10, function: 'counter', kind: 'kill' },
    { t: 10, function: 'cart', kind: 'add' },
    { t: 20, function: 'counter', kind: 'add' },
    { t: 60, kind: 'shift' },
  ];

  it('charges each failure to the latest action on its function within the window', () => {
    const r = attributeFailures(
      [
        { t: 10.2, target: 'counter' },
        { t: 12, target: 'cart' },
        { t: 21, target: 'counter' },
      ],
      actions,
      5,
    );
    expect(r).toEqual(new Map([['kill', 1], ['add', 2]]));
  });

  it('leaves failures before any action, after the window or on another function unexplained', () => {
    const r = attributeFailures(
      [
        { t: 9.9, target: 'counter' },
        { t: 16, target: 'cart' },
        { t: 11, target: 'canary' },
      ],
      actions,
      5,
    );
    expect(r).toEqual(new Map([['none', 3]]));
  });
});
