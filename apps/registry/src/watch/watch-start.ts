import type { WatchOptions } from '../query/filter.ts';

/** How a watch stream begins. */
export type WatchStart =
  /** The current candidate set first, then changes. */
  | { kind: 'snapshot' }
  /** Only the changes made after the stream opened (first connect with includeSnapshot=false). */
  | { kind: 'live' }
  /** etcd's history after `since`, then live changes; no snapshot. */
  | { kind: 'replay'; since: number }
  /** 410 revision_expired. */
  | { kind: 'expired'; message: string };

/**
 * The seed's resumption rule. A first connect (no sinceRevision) starts with a snapshot when
 * includeSnapshot is true (the default) and with nothing but what changes afterwards when it is
 * false. A resumable sinceRevision replays what happened after it (no snapshot). One that cannot
 * be resumed (compacted, or ahead of etcd) gives a fresh snapshot when includeSnapshot is true
 * and 410 revision_expired when it is false.
 */
export async function decideStart(opts: WatchOptions, current: number, compactedAt: (rev: number) => Promise<boolean>): Promise<WatchStart> {
  if (opts.sinceRevision === undefined) return opts.includeSnapshot ? { kind: 'snapshot' } : { kind: 'live' };
  const since = opts.sinceRevision;
  let expired: string | undefined;
  if (since > current) {
    expired = `sinceRevision ${since} is ahead of the registry (revision ${current}); this history is unknown here`;
  } else if (since < current && (await compactedAt(since + 1))) {
    expired = `sinceRevision ${since} has been compacted away in etcd; start over with a snapshot`;
  }
  if (expired === undefined) return { kind: 'replay', since };
  return opts.includeSnapshot ? { kind: 'snapshot' } : { kind: 'expired', message: expired };
}
