import { MAX_REVISION_GC_KEEP, parseDurationMs } from '@orrery/spec';
import { DEFAULT_REVISION_GC, type RevisionGcSettings } from './revision-collection.ts';

/** Operator flags for platform-wide revision garbage collection (Knative's config-gc); a Function's spec.revisionGC wins. */
export const REVISION_GC_FLAGS = {
  'revision-gc-keep': { type: 'string' },
  'revision-gc-min-age': { type: 'string' },
} as const;

export const REVISION_GC_USAGE = `  [--revision-gc-keep 20 (non-routed revisions kept per Function besides the routed ones)]
  [--revision-gc-min-age 48h (a revision younger than this is never collected)]`;

/** Flag values → settings; throws a message naming the bad flag. */
export function revisionGcFromFlags(v: Partial<Record<keyof typeof REVISION_GC_FLAGS, string>>): RevisionGcSettings {
  let keep = DEFAULT_REVISION_GC.keep;
  const rawKeep = v['revision-gc-keep'];
  if (rawKeep !== undefined) {
    keep = Number(rawKeep);
    if (!/^\d+$/.test(rawKeep) || keep > MAX_REVISION_GC_KEEP) throw new Error(`--revision-gc-keep must be a whole number from 0 to ${MAX_REVISION_GC_KEEP}, got ${JSON.stringify(rawKeep)}`);
  }
  let minAgeMs = DEFAULT_REVISION_GC.minAgeMs;
  const rawAge = v['revision-gc-min-age'];
  if (rawAge !== undefined) {
    minAgeMs = parseDurationMs(rawAge);
    if (!Number.isFinite(minAgeMs) || minAgeMs < 0) throw new Error(`--revision-gc-min-age must be a duration like "48h" or "0s", got ${JSON.stringify(rawAge)}`);
  }
  return { keep, minAgeMs };
}
