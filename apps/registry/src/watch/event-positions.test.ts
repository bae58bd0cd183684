import { describe, expect, it } from 'vitest';
import type { WatchEvent } from './change-events.ts';
import { PositionedEventWriter } from './event-positions.ts';

const upsert = (revision: number, id: string): WatchEvent =>
  ({ type: 'upsert', revision, instance: { instanceId: id } }) as unknown as WatchEvent;

const ids = (frames: string[]): string[] => frames.map((f) => /^id: (.*)$/m.exec(f)?.[1] ?? '?');

describe('PositionedEventWriter', () => {
  it('gives every event but the last of its revision the revision before it, the last its own', async () => {
    const frames: string[] = [];
    const w = new PositionedEventWriter((f) => frames.push(f));
    for (const ev of [upsert(10, 'a'), upsert(11, 'b'), upsert(11, 'c'), upsert(11, 'd'), upsert(12, 'e')]) w.push(ev);
    // The last event is held until the end of the pass: it may yet have company.
    expect(ids(frames)).toEqual(['10', '10', '10', '11']);
    await Promise.resolve();
    expect(ids(frames)).toEqual(['10', '10', '10', '11', '12']);
    expect(frames.map((f) => /"instanceId":"(\w)"/.exec(f)?.[1])).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('a stream cut after any event resumes (after its id) with nothing of that revision missed', async () => {
    const frames: string[] = [];
    const w = new PositionedEventWriter((f) => frames.push(f));
    const events = [upsert(20, 'a'), upsert(21, 'b'), upsert(21, 'c'), upsert(22, 'd')];
    for (const ev of events) w.push(ev);
    await Promise.resolve();
    ids(frames).forEach((id, seen) => {
      // What a resume after `id` replays: every event of a later revision.
      const replayed = events.filter((e) => e.revision > Number(id));
      const delivered = new Set([...events.slice(0, seen + 1), ...replayed]);
      expect(delivered.size).toBe(events.length);
    });
  });

  it('release writes the held event at once (before an error frame) and only once', async () => {
    const frames: string[] = [];
    const w = new PositionedEventWriter((f) => frames.push(f));
    w.push(upsert(5, 'a'));
    w.release();
    expect(ids(frames)).toEqual(['5']);
    await Promise.resolve();
    expect(frames).toHaveLength(1);
  });
});
