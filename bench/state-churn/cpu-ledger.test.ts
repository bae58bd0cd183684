import { describe, expect, it } from 'vitest';
import { CpuLedger } from './cpu-ledger.ts';

describe('CpuLedger', () => {
  it('counts each group’s CPU since begin, new processes from zero, gone ones up to their last reading', () => {
    const cpu = new Map<number, number>([[1, 10], [2, 5], [3, 1]]);
    const ledger = new CpuLedger((pid) => cpu.get(pid));
    ledger.begin({ router: [1], workers: [2, 3] });
    cpu.set(1, 12);
    cpu.set(2, 6.5);
    ledger.note('workers', [2]); // read just before it is removed
    cpu.delete(2); // gone: later readings find nothing
    cpu.set(4, 0.75); // a worker started during the phase
    cpu.set(3, 1.25);
    ledger.note('router', [1]);
    ledger.note('workers', [2, 3, 4]);
    const t = ledger.totals();
    expect(t.get('router')).toBeCloseTo(2, 12);
    expect(t.get('workers')).toBeCloseTo(1.5 + 0.25 + 0.75, 12);
  });

  it('skips processes it cannot read at begin and counts nothing for an untouched group', () => {
    const ledger = new CpuLedger((pid) => (pid === 9 ? undefined : 3));
    ledger.begin({ a: [9], b: [1] });
    expect(ledger.totals().get('a')).toBeUndefined();
    expect(ledger.totals().get('b')).toBe(0);
  });
});
