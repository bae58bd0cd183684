import { describe, expect, it } from 'vitest';
import { counterVerdict, exitCodeFor, summaryTable, type Check } from './summary-table.ts';

const check = (name: string, pass: boolean, correctness: boolean): Check => ({ name, figure: '1', goal: '0', pass, correctness });

describe('summaryTable', () => {
  it('prints one row per check with PASS or MISS', () => {
    const t = summaryTable([check('failed requests', true, true), check('router-1 RSS', false, false)]);
    expect(t.split('\n')).toEqual(['| check | figure | goal | result |', '|---|---:|---|---|', '| failed requests | 1 | 0 | PASS |', '| router-1 RSS | 1 | 0 | MISS |']);
  });
});

describe('exitCodeFor', () => {
  it('fails on a missed correctness check only', () => {
    expect(exitCodeFor([check('a', true, true), check('rss', false, false)])).toBe(0);
    expect(exitCodeFor([check('lost writes', false, true)])).toBe(1);
    expect(exitCodeFor([])).toBe(0);
  });
});

describe('counterVerdict', () => {
  it('is consistent when the count equals the acknowledged increments', () => {
    expect(counterVerdict(10, 0, 10)).toEqual({ lost: 0, unacknowledgedApplied: 0, consistent: true });
  });

  it('counts acknowledged increments missing from the final count as lost', () => {
    expect(counterVerdict(10, 3, 8)).toEqual({ lost: 2, unacknowledgedApplied: 0, consistent: false });
  });

  it('allows failed requests that landed anyway, but no more than failed', () => {
    expect(counterVerdict(10, 2, 12).consistent).toBe(true);
    expect(counterVerdict(10, 2, 13)).toEqual({ lost: 0, unacknowledgedApplied: 3, consistent: false });
  });
});
