/**
 * Which of a Function's revisions to delete (revision garbage collection, docs/functions.md "Old
 * revisions"), as Knative's GC decides it: a revision is kept when traffic names it (in the spec
 * or the status, a tag alone included), when it is the latest created or the latest ready, when it
 * is younger than `minAgeMs`, or when it is among the newest `keep` of the others. Everything else
 * is collected. Pure: the reconciler passes the clock, and deletes what this returns.
 */
import { DEFAULT_REVISION_GC_KEEP, DEFAULT_REVISION_GC_MIN_AGE, parseDurationMs, revisionNumber, type OrreryFunction, type Revision } from '@orrery/spec';

export interface RevisionGcSettings {
  keep: number;
  minAgeMs: number;
}

/** The operator's platform-wide settings (`--revision-gc-keep`, `--revision-gc-min-age`) when nothing says otherwise. */
export const DEFAULT_REVISION_GC: RevisionGcSettings = { keep: DEFAULT_REVISION_GC_KEEP, minAgeMs: parseDurationMs(DEFAULT_REVISION_GC_MIN_AGE) };

export type KeptBecause = 'routed' | 'latest-created' | 'latest-ready' | 'young' | 'recent';

export interface RevisionCollection {
  /** Oldest first. */
  collect: Array<{ name: string; ageMs: number }>;
  kept: Array<{ name: string; because: KeptBecause }>;
}

/** The Function's own `spec.revisionGC`, field by field over the platform's settings. */
export function revisionGcSettings(fn: Pick<OrreryFunction, 'spec'>, platform: RevisionGcSettings = DEFAULT_REVISION_GC): RevisionGcSettings {
  const own = fn.spec.revisionGC;
  const minAgeMs = own?.minAge === undefined ? platform.minAgeMs : parseDurationMs(own.minAge);
  return { keep: own?.keep ?? platform.keep, minAgeMs: Number.isFinite(minAgeMs) && minAgeMs > 0 ? minAgeMs : 0 };
}

export function planRevisionCollection(fn: Pick<OrreryFunction, 'spec' | 'status'>, revisions: readonly Revision[], settings: RevisionGcSettings, nowMs: number): RevisionCollection {
  const routed = new Set<string>();
  for (const t of fn.spec.traffic) if (t.revisionName) routed.add(t.revisionName);
  for (const t of fn.status?.traffic ?? []) routed.add(t.revisionName);
  const latestCreated = fn.status?.latestCreatedRevision;
  const latestReady = fn.status?.latestReadyRevision;
  // Newest first: the `keep` budget goes to the most recent non-routed revisions.
  const newestFirst = [...revisions].sort((a, b) => revisionNumber(b.metadata.name) - revisionNumber(a.metadata.name));
  // The newest revision is the latest created even before status says so (it was just made).
  const newest = newestFirst[0]?.metadata.name;
  const collect: RevisionCollection['collect'] = [];
  const kept: RevisionCollection['kept'] = [];
  let recent = 0;
  for (const r of newestFirst) {
    const name = r.metadata.name;
    const created = Date.parse(r.metadata.creationTimestamp ?? '');
    // No creation time (should not happen): treat as new, never collect what cannot be dated.
    const ageMs = Number.isFinite(created) ? Math.max(0, nowMs - created) : 0;
    let because: KeptBecause | undefined;
    if (routed.has(name)) because = 'routed';
    else if (name === latestCreated || name === newest) because = 'latest-created';
    else if (name === latestReady) because = 'latest-ready';
    else if (ageMs < settings.minAgeMs || !Number.isFinite(created)) because = 'young';
    else if (recent < settings.keep) because = 'recent';
    if (because === 'recent' || because === 'young') recent++;
    if (because) kept.push({ name, because });
    else collect.push({ name, ageMs });
  }
  return { collect: collect.reverse(), kept };
}
