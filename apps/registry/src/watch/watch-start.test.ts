import { describe, expect, it } from 'vitest';
import { decideStart } from './watch-start.ts';

const never = async (): Promise<boolean> => false;
const always = async (): Promise<boolean> => true;

describe('decideStart (the seed\'s watch resumption rule)', () => {
  it('a first connect: snapshot with includeSnapshot=true, live only with false', async () => {
    expect(await decideStart({ includeSnapshot: true }, 10, never)).toEqual({ kind: 'snapshot' });
    expect(await decideStart({ includeSnapshot: false }, 10, never)).toEqual({ kind: 'live' });
    // A first connect never asks etcd about compaction.
    expect(await decideStart({ includeSnapshot: false }, 10, () => Promise.reject(new Error('not asked')))).toEqual({ kind: 'live' });
  });

  it('a resumable sinceRevision replays, whatever includeSnapshot says', async () => {
    for (const includeSnapshot of [true, false]) {
      expect(await decideStart({ includeSnapshot, sinceRevision: 5 }, 10, never)).toEqual({ kind: 'replay', since: 5 });
      // At the current revision nothing is missing: no compaction probe needed.
      expect(await decideStart({ includeSnapshot, sinceRevision: 10 }, 10, always)).toEqual({ kind: 'replay', since: 10 });
      expect(await decideStart({ includeSnapshot, sinceRevision: 0 }, 0, always)).toEqual({ kind: 'replay', since: 0 });
    }
  });

  it('a compacted or future sinceRevision: a fresh snapshot, or 410 with includeSnapshot=false', async () => {
    expect(await decideStart({ includeSnapshot: true, sinceRevision: 5 }, 10, always)).toEqual({ kind: 'snapshot' });
    expect(await decideStart({ includeSnapshot: true, sinceRevision: 11 }, 10, never)).toEqual({ kind: 'snapshot' });
    const compacted = await decideStart({ includeSnapshot: false, sinceRevision: 5 }, 10, always);
    expect(compacted).toMatchObject({ kind: 'expired', message: expect.stringContaining('compacted') });
    const ahead = await decideStart({ includeSnapshot: false, sinceRevision: 11 }, 10, never);
    expect(ahead).toMatchObject({ kind: 'expired', message: expect.stringContaining('ahead') });
  });

  it('probes etcd at the first revision the client has not seen', async () => {
    const asked: number[] = [];
    await decideStart({ includeSnapshot: true, sinceRevision: 7 }, 10, async (rev) => (asked.push(rev), false));
    expect(asked).toEqual([8]);
  });
});
