import { describe, expect, it } from 'vitest';
import { KeyspaceWriteCounters } from './keyspace-write-counters.ts';

describe('KeyspaceWriteCounters', () => {
  it('counts each kind per keyspace, and an unseen keyspace is all zero', () => {
    const c = new KeyspaceWriteCounters();
    c.count('ns', 'a', 'replayed');
    c.count('ns', 'a', 'replayed');
    c.count('ns', 'a', 'refused');
    c.count('ns', 'b', 'claimed');
    c.count('other', 'a', 'mismatched');
    expect(c.of('ns', 'a')).toEqual({ replayed: 2, mismatched: 0, claimed: 0, refused: 1 });
    expect(c.of('ns', 'b')).toEqual({ replayed: 0, mismatched: 0, claimed: 1, refused: 0 });
    expect(c.of('other', 'a')).toEqual({ replayed: 0, mismatched: 1, claimed: 0, refused: 0 });
    expect(c.of('ns', 'none')).toEqual({ replayed: 0, mismatched: 0, claimed: 0, refused: 0 });
  });

  it('hands out copies: a caller cannot change the counts', () => {
    const c = new KeyspaceWriteCounters();
    c.count('ns', 'a', 'claimed');
    const seen = c.of('ns', 'a');
    seen.claimed = 99;
    expect(c.of('ns', 'a').claimed).toBe(1);
  });
});
