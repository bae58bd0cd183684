import type { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { sliceSpent, sliceStatements, type TimeSliceClock } from './pglite-time-slices.ts';

describe('sliceSpent', () => {
  it('is false within the slice and true from its end on', () => {
    expect(sliceSpent(100, 100, 4)).toBe(false);
    expect(sliceSpent(100, 103.9, 4)).toBe(false);
    expect(sliceSpent(100, 104, 4)).toBe(true);
    expect(sliceSpent(100, 5_000, 4)).toBe(true);
  });

  it('with a zero slice, every statement waits for a turn', () => {
    expect(sliceSpent(100, 100, 0)).toBe(true);
  });
});

describe('sliceStatements (fake clock, fake client)', () => {
  it('waits for a turn before the first statement past each slice, and passes messages and answers through', async () => {
    let now = 0;
    const log: string[] = [];
    const clock: TimeSliceClock = { now: () => now, turn: async () => void log.push(`turn@${now}`) };
    // Each statement takes 0.4 ms of the thread.
    const client = {
      execProtocolRaw: async (message: Uint8Array) => {
        log.push(`exec ${message[0]}@${now}`);
        now += 0.4;
        return new Uint8Array([message[0]! * 2]);
      },
    } as unknown as PGlite;
    sliceStatements(client, 1, clock);
    const answers: number[] = [];
    for (let i = 1; i <= 6; i++) answers.push((await client.execProtocolRaw(new Uint8Array([i])))[0]!);
    expect(answers).toEqual([2, 4, 6, 8, 10, 12]);
    // 0.4 + 0.4 + 0.4 ≥ 1 ms spent after the third: the fourth waits; then again after three more.
    expect(log.map((l) => l.split('@')[0])).toEqual(['exec 1', 'exec 2', 'exec 3', 'turn', 'exec 4', 'exec 5', 'exec 6']);
  });
});
