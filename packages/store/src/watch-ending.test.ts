import { describe, expect, it } from 'vitest';
import { watchEnding } from './watch-ending.ts';

describe('watchEnding', () => {
  it('closing resolves done and cleans up once, whatever comes after', async () => {
    let cleaned = 0;
    const w = watchEnding(() => cleaned++);
    expect(w.ended).toBe(false);
    w.end();
    w.end(new Error('late'));
    await expect(w.done).resolves.toBeUndefined();
    expect(w.ended).toBe(true);
    expect(cleaned).toBe(1);
  });

  it('a failure rejects done with its error', async () => {
    const w = watchEnding(() => {});
    w.end(new Error('expired'));
    await expect(w.done).rejects.toThrow('expired');
  });
});
