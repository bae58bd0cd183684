/**
 * The CLI's notation for a traffic split, `[tag:]revision=percent[%]` per target, comma
 * separated — what `orrery get functions` prints under TRAFFIC and `orrery traffic set` reads,
 * so a printed split can be pasted back. `latest` stands for "the latest ready revision"
 * (latestRevision: true; revision names are `<function>-NNNNN`, so it cannot clash).
 */
import type { TrafficTarget } from '@orrery/spec';

const ENTRY = /^(?:([a-z][-a-z0-9]*):)?([a-z0-9][-a-z0-9]*)=(\d{1,3})%?$/;

/**
 * Targets from one or more arguments (`a=50,b=50` or `a=50 b=50`). Only the notation is checked
 * here: sums, tags and revision names are the API's to judge (the same rules as the webhook).
 */
export function parseTraffic(args: readonly string[]): { targets: TrafficTarget[] } | { error: string } {
  const entries = args.flatMap((a) => a.split(/[\s,]+/)).filter(Boolean);
  if (entries.length === 0) return { error: 'no traffic targets: give revision=percent, e.g. counter-00001=90,counter-00002=10' };
  const targets: TrafficTarget[] = [];
  for (const e of entries) {
    const m = ENTRY.exec(e);
    if (!m) return { error: `"${e}" is not [tag:]revision=percent (e.g. canary:counter-00002=10)` };
    const [, tag, revision, percent] = m;
    targets.push({ ...(revision === 'latest' ? { latestRevision: true } : { revisionName: revision! }), percent: Number(percent), ...(tag ? { tag } : {}) });
  }
  return { targets };
}

/** An empty split is printed as what it means: everything to the latest ready revision. */
export function formatTraffic(targets: ReadonlyArray<{ revisionName?: string; latestRevision?: boolean; percent: number; tag?: string }>): string {
  if (targets.length === 0) return 'latest=100%';
  return targets.map((t) => `${t.tag ? `${t.tag}:` : ''}${t.revisionName || 'latest'}=${t.percent}%`).join(',');
}
