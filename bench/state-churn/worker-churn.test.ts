import { describe, expect, it } from 'vitest';
import { pickVictim, WorkerSightings } from './worker-churn.ts';

describe('pickVictim', () => {
  const seen = (entries: Array<[string, number, number]>) => new Map(entries.map(([id, first, last]) => [id, { firstSeenMs: first, lastSeenMs: last }]));

  it('takes the longest-serving live worker', () => {
    const w = seen([['b', 200, 1000], ['a', 100, 1000], ['c', 300, 1000]]);
    expect(pickVictim(w, new Set(), 1000, 500)).toBe('a');
    expect(pickVictim(w, new Set(['a']), 1000, 500)).toBe('b');
  });

  it('ignores workers that stopped answering, and never takes the last one', () => {
    const w = seen([['old', 0, 100], ['x', 50, 1000]]);
    expect(pickVictim(w, new Set(), 1000, 500)).toBeUndefined(); // only x is live
    expect(pickVictim(seen([['x', 0, 1000], ['y', 10, 1000]]), new Set(['y']), 1000, 500)).toBeUndefined();
  });

  it('breaks ties on the id, so a run is repeatable', () => {
    const w = seen([['q', 5, 1000], ['p', 5, 1000]]);
    expect(pickVictim(w, new Set(), 1000, 500)).toBe('p');
  });
});

describe('WorkerSightings', () => {
  it('pairs each removal with the next new worker, in order', () => {
    const s = new WorkerSightings();
    s.saw('1', 0);
    s.saw('2', 0);
    s.remove('1', 1000);
    s.saw('2', 1100); // known worker: no replacement
    s.remove('2', 1200);
    s.saw('3', 1500);
    s.saw('4', 1900);
    s.saw('5', 2000); // no removal waiting
    expect(s.replacementMs).toEqual([500, 700]);
  });

  it('remembers first and last sighting, and what was removed', () => {
    const s = new WorkerSightings();
    s.saw('a', 10);
    s.saw('a', 30);
    s.saw('a', 20); // out of order: last stays the latest
    s.saw('b', 25);
    expect(s.workers.get('a')).toEqual({ firstSeenMs: 10, lastSeenMs: 30 });
    expect(s.victim(30, 100)).toBe('a');
    s.remove('a', 31);
    expect(s.victim(31, 100)).toBeUndefined();
  });
});
