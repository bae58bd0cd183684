import { describe, expect, it } from 'vitest';
import { SourceReadSkipped, boundedSource } from './bounded-source.ts';

describe('bounded admission reads', () => {
  it('allows a burst, then reads at the sustained rate; reads over the limit are skipped and counted', async () => {
    let t = 0;
    let calls = 0;
    const bounded = boundedSource({ functions: async () => (calls++, []) }, { burst: 3, refillMs: 500 }, () => t);
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) {
      outcomes.push(await bounded.source.functions!(`ns-${i}`).then(() => 'read', (err: unknown) => (err instanceof SourceReadSkipped ? 'skipped' : 'failed')));
    }
    expect(outcomes).toEqual(['read', 'read', 'read', 'skipped', 'skipped']);
    expect(calls).toBe(3);
    expect(bounded.takeSkipped()).toBe(2);
    expect(bounded.takeSkipped()).toBe(0);
    // Half a second later one token is back (2 per second), and only one.
    t = 500;
    await expect(bounded.source.functions!('ns-a')).resolves.toEqual([]);
    await expect(bounded.source.functions!('ns-b')).rejects.toBeInstanceOf(SourceReadSkipped);
    // A long quiet spell refills up to the burst, never beyond.
    t = 60_000;
    const after = await Promise.allSettled([1, 2, 3, 4].map((i) => bounded.source.functions!(`late-${i}`)));
    expect(after.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
  });

  it('shares one call among concurrent reads of the same thing, spending one token', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const bounded = boundedSource(
      {
        environment: async () => {
          calls++;
          await gate;
          return undefined;
        },
      },
      { burst: 1, refillMs: 1_000_000 },
      () => 0,
    );
    const reads = [1, 2, 3].map(() => bounded.source.environment!('team-a', 'shared'));
    release();
    expect(await Promise.all(reads)).toEqual([undefined, undefined, undefined]);
    expect(calls).toBe(1);
    // Finished: the next read is a new call, and the bucket is empty.
    await expect(bounded.source.environment!('team-a', 'shared')).rejects.toBeInstanceOf(SourceReadSkipped);
  });

  it('passes failures through and keeps only the readers it was given', async () => {
    const bounded = boundedSource({
      environment: async () => {
        throw new Error('forbidden');
      },
    });
    await expect(bounded.source.environment!('team-a', 'x')).rejects.toThrow('forbidden');
    expect('functions' in bounded.source).toBe(false);
  });
});
