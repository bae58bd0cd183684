import { describe, expect, it } from 'vitest';
import { WrittenStatus } from './written-status.ts';

describe('WrittenStatus', () => {
  it('the first write is judged against the cache, later ones against what this term wrote', async () => {
    const w = new WrittenStatus<string>();
    const applied: string[] = [];
    const apply = (s: string) => async () => void applied.push(s);
    expect(await w.write('ns/a', 'cached-0', 'one', apply('one'))).toBe('cached-0');
    // The cache still lags (shows cached-0): the Event must compare with "one", not report it again.
    expect(await w.write('ns/a', 'cached-0', 'two', apply('two'))).toBe('one');
    w.forget('ns/a');
    expect(await w.write('ns/a', 'cached-2', 'three', apply('three'))).toBe('cached-2');
    expect(applied).toEqual(['one', 'two', 'three']);
  });

  it('a failed write records nothing', async () => {
    const w = new WrittenStatus<string>();
    await expect(w.write('ns/a', 'cached', 'one', async () => Promise.reject(new Error('conflict')))).rejects.toThrow('conflict');
    expect(await w.write('ns/a', 'cached', 'two', async () => {})).toBe('cached');
  });
});
