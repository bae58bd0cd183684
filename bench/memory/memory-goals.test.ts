import { describe, expect, it } from 'vitest';
import { medianMemory, memoryVerdict, parseSmapsRollup } from './memory-goals.ts';

const ROLLUP = `55d0c0a00000-7ffd8a5f3000 ---p 00000000 00:00 0                          [rollup]
Rss:               80300 kB
Pss:               58000 kB
Shared_Clean:      46080 kB
Shared_Dirty:          0 kB
Private_Clean:      1024 kB
Private_Dirty:     33196 kB
Referenced:        80300 kB
`;

describe('the memory goals', () => {
  it('reads RSS, private and shared-clean pages from smaps_rollup', () => {
    expect(parseSmapsRollup(ROLLUP)).toEqual({ rssMiB: 78.4, privateMiB: 33.4, sharedCleanMiB: 45 });
    expect(() => parseSmapsRollup('Rss: 1 kB\n')).toThrow(/smaps_rollup has no/);
  });

  it('takes the median of each field', () => {
    const m = (rssMiB: number, privateMiB = 1, sharedCleanMiB = 2) => ({ rssMiB, privateMiB, sharedCleanMiB });
    expect(medianMemory([m(90), m(70, 5), m(80, 3)])).toEqual({ rssMiB: 80, privateMiB: 3, sharedCleanMiB: 2 });
    expect(medianMemory([m(70), m(80)]).rssMiB).toBe(75);
    expect(() => medianMemory([])).toThrow();
  });

  it('passes strictly under the goal, misses at or over it, and has no verdict where the issue sets no goal', () => {
    const at = (rssMiB: number) => ({ rssMiB, privateMiB: 0, sharedCleanMiB: 0 });
    expect(memoryVerdict('router-1', at(79.9))).toEqual({ component: 'router-1', goalMiB: 80, verdict: 'PASS' });
    expect(memoryVerdict('router-2', at(80)).verdict).toBe('MISS');
    expect(memoryVerdict('operator', at(257)).verdict).toBe('MISS');
    expect(memoryVerdict('statesvc', at(72)).verdict).toBe('PASS');
    expect(memoryVerdict('console', at(100))).toEqual({ component: 'console', goalMiB: undefined, verdict: '-' });
  });
});
